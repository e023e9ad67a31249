import { type Hash, createHash } from 'node:crypto';
import type { Block } from '../../../shared/model/content';
import type { JsonLine } from '../../reader/types';
import { jsonText, MAX_CONTENT_DEPTH } from '../../../shared/json-depth';
import { shown } from '../shown';
import { mapContent } from './blocks';
import { type Obj, isObj } from './json';

/*
 * The messages of a Claude Code 2.1.332 `api-request` (one per agent model call): the first `keep`
 * messages of the api-request named by `base`, followed by the messages named by the hashes in
 * `tail` (test/fidelity/claude-requests.ts is the reference; this is its streaming port).
 *
 * A hash is sha256 of the message as canonical JSON (keys sorted, no spaces, UTF-8), a string
 * content written as one text block. It names an `api-request-blob` message, a `user` record's
 * message, the `assistant` records sharing one message.id (content joined in file order), or a run
 * of consecutive tool-result `user` records (parallel tool results, merged).
 *
 * Nothing parsed is kept: per message the index keeps its hash and the ids of the items that hold
 * it; an assistant message and a tool-result run keep a running sha256 (node's Hash, copied to
 * digest), so their hash is known after every line. Blob messages wait (mapped to blocks) until a
 * request names them, when the importer makes them items. Per api-request the index keeps its
 * messages as lists of item ids, for the last MAX_REQUESTS requests (a `base` is the previous call).
 */

/** Api-requests whose message lists are kept for later `base` references. */
const MAX_REQUESTS = 64;
/** Blobs waiting for a request to name them, at most. */
const MAX_BLOBS = 256;

/**
 * JSON with sorted keys and no spaces: the form Claude Code hashes messages in. A value too deep
 * to walk recursively is written in its own key order, without recursion: its hash then matches
 * no request, which leaves that message unresolved rather than overflowing the stack.
 */
export function canonicalJson(v: unknown): string {
  // One walk: the sorted text is written as the depth is measured; a value found too deep (as
  // depthExceeds counts: an array or object more than MAX_CONTENT_DEPTH levels down) stops it.
  return sortedJson(v, 1) ?? jsonText(v);
}

/** `v`'s sorted JSON, `v` (if an array or object) being at nesting level `level`; null past MAX_CONTENT_DEPTH. */
function sortedJson(v: unknown, level: number): string | null {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (level > MAX_CONTENT_DEPTH) return null;
  const parts: string[] = [];
  if (Array.isArray(v)) {
    for (const x of v as unknown[]) {
      const t = sortedJson(x, level + 1);
      if (t === null) return null;
      parts.push(t);
    }
    return `[${parts.join(',')}]`;
  }
  const o = v as Obj;
  for (const k of Object.keys(o).sort()) {
    const x = o[k];
    if (x === undefined) continue;
    const t = sortedJson(x, level + 1);
    if (t === null) return null;
    parts.push(`${JSON.stringify(k)}:${t}`);
  }
  return `{${parts.join(',')}}`;
}

function contentBlocks(content: unknown): unknown[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content : [];
}

/** A message hashed a block at a time: `{"content":[…],"role":"<role>"}`. */
class RunningHash {
  private readonly h: Hash = createHash('sha256').update('{"content":[', 'utf8');
  private n = 0;
  constructor(private readonly role: string) {}
  add(blocks: readonly unknown[]): void {
    this.addTexts(blocks.map(canonicalJson));
  }
  /** Blocks already written as canonical JSON (a tool-result record feeds two hashes the same texts). */
  addTexts(texts: readonly string[]): void {
    for (const t of texts) this.h.update(`${this.n++ > 0 ? ',' : ''}${t}`, 'utf8');
  }
  digest(): string {
    return this.h
      .copy()
      .update(`],"role":${JSON.stringify(this.role)}}`, 'utf8')
      .digest('hex');
  }
}

export interface PendingBlob {
  readonly role: 'user' | 'assistant' | 'system';
  readonly blocks: Block[];
  /** The blob line (its item is located there, so its full text is re-read from it). */
  readonly at: JsonLine;
}

/**
 * A message of a request: the items holding it, or a blob still to be made an item. `occurrence`
 * counts the items one blob message has become (1: the first): a message sent again while its
 * earlier copy is still in the conversation (the same reminder twice) is an item of its own.
 */
export type Resolved =
  { readonly items: readonly string[] } | { readonly blob: string; readonly message: PendingBlob; readonly occurrence: number };

export interface ApiRequestMessages {
  readonly id: string;
  /** In order; null where a hash (or the base) does not resolve. */
  readonly messages: readonly (Resolved | null)[];
  readonly unresolved: readonly string[];
  /** Why the record's `keep` cannot be a count of its messages; null when it can. */
  readonly bad: string | null;
}

/**
 * Why `keep` is no count of at most `most` messages (`where` names what holds them), or null. An
 * absent keep is 0.
 */
function badKeep(keep: unknown, most: number, where: string): string | null {
  if (keep === undefined) return null;
  if (typeof keep !== 'number' || !Number.isInteger(keep) || keep < 0) return `keep ${shown(keep)} is not a count of messages`;
  if (keep > most) return `keep ${keep} is more than the ${most} message${most === 1 ? '' : 's'} ${where}`;
  return null;
}

export class ApiRequestIndex {
  /**
   * Message hash → the ids of the items that hold it, one list per time the log holds that message
   * (a user record repeating an earlier one's text, a blob made an item again).
   */
  private readonly byHash = new Map<string, (readonly string[])[]>();
  private readonly blobs = new Map<string, PendingBlob>();
  /** Blobs made items, kept to make an item again when a request sends the message twice. */
  private readonly itemizedBlobs = new Map<string, PendingBlob>();
  /** api-request id → its messages as lists of item ids. */
  private readonly requests = new Map<string, readonly (readonly string[])[]>();
  private readonly assistants = new Map<string, { hash: RunningHash; last: string | undefined }>();
  private run: { hash: RunningHash; items: string[]; last: string | undefined } | null = null;
  /** Messages the log has written so far (records and blobs, a tool-result run counted per record): no request keeps more. */
  private seen = 0;

  /** A `user` record that became item `itemId`. */
  user(itemId: string, content: unknown): void {
    this.seen++;
    const blocks = contentBlocks(content);
    const texts = blocks.map(canonicalJson);
    const own = new RunningHash('user');
    own.addTexts(texts);
    this.set(own.digest(), [itemId]);
    const toolResults = blocks.length > 0 && blocks.every((b) => isObj(b) && b.type === 'tool_result');
    if (!toolResults) {
      this.run = null;
      return;
    }
    if (!this.run) this.run = { hash: new RunningHash('user'), items: [], last: undefined };
    const r = this.run;
    r.hash.addTexts(texts);
    r.items.push(itemId);
    if (r.items.length > 1) {
      if (r.last !== undefined) this.unset(r.last, r.items[0] as string);
      r.last = r.hash.digest();
      this.set(r.last, [...r.items]);
    }
  }

  /** An `assistant` record whose message is item `itemId`. */
  assistant(itemId: string, content: unknown): void {
    this.run = null;
    let a = this.assistants.get(itemId);
    if (!a) {
      a = { hash: new RunningHash('assistant'), last: undefined };
      this.seen++;
      this.assistants.set(itemId, a);
      // Only the latest messages are still growing; older ones keep their last hash.
      if (this.assistants.size > 8) {
        const first = this.assistants.keys().next().value;
        if (first !== undefined) this.assistants.delete(first);
      }
    }
    a.hash.add(Array.isArray(content) ? content : []);
    if (a.last !== undefined) this.unset(a.last, itemId);
    a.last = a.hash.digest();
    this.set(a.last, [itemId]);
  }

  blob(hash: string, message: Obj, at: JsonLine): void {
    this.seen++;
    if (this.byHash.has(hash)) return;
    const role = message.role === 'assistant' || message.role === 'system' ? message.role : 'user';
    if (this.blobs.size >= MAX_BLOBS) {
      const first = this.blobs.keys().next().value;
      if (first !== undefined) this.blobs.delete(first);
    }
    this.blobs.set(hash, { role, blocks: mapContent(message.content) ?? [], at });
  }

  /** A blob was made item `itemId`. */
  itemized(hash: string, itemId: string): void {
    const blob = this.blobs.get(hash);
    if (blob) {
      this.blobs.delete(hash);
      if (this.itemizedBlobs.size >= MAX_BLOBS) {
        const first = this.itemizedBlobs.keys().next().value;
        if (first !== undefined) this.itemizedBlobs.delete(first);
      }
      this.itemizedBlobs.set(hash, blob);
    }
    this.set(hash, [itemId]);
  }

  private set(hash: string, items: readonly string[]): void {
    // Every holder of a message is kept, in log order; a blob repeating a record's message is not
    // one (./records.ts: blob() leaves it out), so the record stands for it.
    const all = this.byHash.get(hash);
    if (all) all.push(items);
    else this.byHash.set(hash, [items]);
  }

  /** The holder of `hash` that starts with item `first` no longer holds it (its message grew). */
  private unset(hash: string, first: string): void {
    const all = this.byHash.get(hash);
    if (!all) return;
    const rest = all.filter((items) => items[0] !== first);
    if (rest.length > 0) this.byHash.set(hash, rest);
    else this.byHash.delete(hash);
  }

  /** The messages of an api-request record. */
  resolve(v: Obj): ApiRequestMessages {
    const id = typeof v.id === 'string' ? v.id : '';
    const base = typeof v.base === 'string' ? v.base : null;
    const tail = Array.isArray(v.tail) ? v.tail.filter((h): h is string => typeof h === 'string') : [];
    const prefix = base === null ? undefined : this.requests.get(base);
    // `keep` is read from the log: it counts messages the conversation already holds, so a value
    // past that (or not a count at all) is a finding, never a length to fill.
    const bad = badKeep(
      v.keep,
      prefix?.length ?? this.seen,
      prefix === undefined ? 'the conversation holds so far' : `request ${base ?? ''} holds`,
    );
    if (bad !== null) return { id, messages: [], unresolved: [], bad };
    const keep = typeof v.keep === 'number' ? v.keep : 0;
    const unresolved: string[] = [];
    const messages: (Resolved | null)[] = [];
    if (base !== null) {
      // An unknown base leaves the request unresolved: the importer then uses none of its messages.
      if (!prefix) unresolved.push(`base:${base}`);
      else for (const items of prefix.slice(0, keep)) messages.push({ items });
    } else if (keep > 0) unresolved.push(`keep ${keep} without base`);
    // A message the request sends twice is held twice: each time by a holder not used yet.
    const used = new Set<string>();
    for (const m of messages) if (m && 'items' in m) for (const x of m.items) used.add(x);
    const again = new Map<string, number>();
    for (const h of tail) {
      const holders = this.byHash.get(h) ?? [];
      const items = holders.find((xs) => !xs.some((x) => used.has(x)));
      const blob = items ? undefined : (this.blobs.get(h) ?? this.itemizedBlobs.get(h));
      if (items) {
        for (const x of items) used.add(x);
        messages.push({ items });
      } else if (blob) {
        const n = (again.get(h) ?? holders.length) + 1;
        again.set(h, n);
        messages.push({ blob: h, message: blob, occurrence: n });
      } else {
        unresolved.push(h);
        messages.push(null);
      }
    }
    return { id, messages, unresolved, bad: null };
  }

  /** Remember a request's messages (item ids, blobs made items) for later `base` references. */
  remember(id: string, messages: readonly (readonly string[])[]): void {
    if (id === '') return;
    this.requests.delete(id);
    this.requests.set(id, messages);
    if (this.requests.size > MAX_REQUESTS) {
      const first = this.requests.keys().next().value;
      if (first !== undefined) this.requests.delete(first);
    }
  }
}
