import { hash } from 'node:crypto';
import type { EncodingName } from '../../shared/tokens/encoding';
import type { CountStore } from './store';

/**
 * Counts by content: the same text has the same count in an encoding, whichever item, request or
 * session it appears in (a re-injected file, a system prompt repeated by every header of a resumed
 * log, two sessions of one project). Keys are the text itself when short, its SHA-1 otherwise.
 * Bounded: the oldest entries go first when it is full. With a store, what it does not hold is
 * looked up there, and what it learns is kept there too (counts that outlive the process).
 */
export class ContentCountCache {
  private readonly map = new Map<string, number>();
  hits = 0;
  misses = 0;

  constructor(
    readonly maxEntries = 1_000_000,
    readonly store: CountStore | null = null,
  ) {}

  /** The cache key of `text` in `encoding`. */
  static key(encoding: EncodingName, text: string): string {
    if (text.length <= 48) return `${encoding}\u0000${text}`;
    // The one-shot hash: cheaper than a Hash object per text, and a long session has hundreds of thousands of texts.
    return `${encoding}\u0001${hash('sha1', text, 'base64')}`;
  }

  get(key: string): { tokens: number; estimated: number } | undefined {
    let v = this.map.get(key);
    if (v === undefined && this.store) {
      v = this.store.get(key);
      if (v !== undefined) this.remember(key, v);
    }
    if (v === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    // Packed: tokens × 2^24 + estimated (estimated < 2^24 always: it is part of one text's tokens).
    const estimated = v % 0x1000000;
    return { tokens: (v - estimated) / 0x1000000, estimated };
  }

  set(key: string, tokens: number, estimated: number): void {
    const packed = tokens * 0x1000000 + Math.min(estimated, 0xffffff);
    this.remember(key, packed);
    this.store?.set(key, packed);
  }

  private remember(key: string, packed: number): void {
    if (this.map.size >= this.maxEntries) {
      let drop = Math.max(1, Math.floor(this.maxEntries / 8));
      for (const k of this.map.keys()) {
        this.map.delete(k);
        if (--drop === 0) break;
      }
    }
    this.map.set(key, packed);
  }

  get size(): number {
    return this.map.size;
  }
}
