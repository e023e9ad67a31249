import type { SearchMatch } from '../../shared/api/library-contract';
import type { LogEvent } from '../../shared/model/event';
import { MAIN_BRANCH } from '../../shared/replay/branches';
import { lowerBoundBy } from '../../shared/seq-search';
import type { SessionInspector } from '../session/inspector';
import { eventTexts, type EventText } from './event-text';

/**
 * Search within one open session, in main (the renderer never holds a session): a case-insensitive
 * substring of the query in the text of every event of a branch — what the raw history shows and,
 * through provenance, what the model views are made of. One match per text that contains the
 * query; each names the first request that can show it, so the UI can jump to either.
 *
 * Long texts are kept in memory as previews (src/main/session/elide.ts): their events are re-read
 * from the source to be searched whole, a block of events at a time (lines close together read at
 * once) and never kept, until a time budget runs out; events searched in their preview only after
 * that are counted in `partial`.
 */

export interface SearchResult {
  readonly total: number;
  readonly partial: number;
  readonly matches: SearchMatch[];
}

const BEFORE = 60;
const AFTER = 100;
/** Events whose long texts are re-read together, between two looks at the time budget. */
const SEARCH_BLOCK = 2_000;

// Control characters and runs of white space would break a one-line snippet.
// eslint-disable-next-line no-control-regex
const flat = (s: string): string => s.replace(/[\u0000-\u001f\u007f\s]+/g, ' ');

/** A literal, case-insensitive pattern: RegExp's own case folding keeps offsets in the original text. */
export function literalPattern(query: string): RegExp {
  return new RegExp(query.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'), 'iu');
}

export function snippetAround(text: string, at: number, length: number): { snippet: string; at: number; length: number } {
  const start = Math.max(0, at - BEFORE);
  const end = Math.min(text.length, at + length + AFTER);
  const head = (start > 0 ? '…' : '') + flat(text.slice(start, at)).trimStart();
  const hit = flat(text.slice(at, at + length));
  const tail = flat(text.slice(at + length, end)).trimEnd() + (end < text.length ? '…' : '');
  return { snippet: head + hit + tail, at: head.length, length: hit.length };
}

export interface SearchOptions {
  /** Time allowed for re-reading long texts, in ms. Default 5 s. */
  readonly budgetMs?: number;
  readonly now?: () => number;
}

export async function searchSession(inspector: SessionInspector, query: string, branch: string, max: number, options: SearchOptions = {}): Promise<SearchResult> {
  const now = options.now ?? Date.now;
  const deadline = now() + (options.budgetMs ?? 5000);
  const state = inspector.replay(branch);
  const events = inspector.session.events;
  const requestById = new Map(state.requests.map((r) => [r.id, r.index]));
  const pattern = literalPattern(query);
  const matches: SearchMatch[] = [];
  let total = 0;
  let partial = 0;
  // Blocks of events: the long texts of a block are re-read together (LoadedSession.hydrateMany).
  for (let b = 0; b < state.seqs.length; b += SEARCH_BLOCK) {
    const block = state.seqs.slice(b, b + SEARCH_BLOCK);
    const inMemory = block.map((seq) => {
      const e = events.at(seq);
      return e ? eventTexts(e) : null;
    });
    const elided = now() < deadline ? block.filter((_, i) => inMemory[i]?.some((t) => t.elided)) : [];
    const full = new Map<number, LogEvent>();
    if (elided.length > 0) (await inspector.session.hydrateMany(elided)).forEach((e, i) => full.set(elided[i] as number, e));
    block.forEach((seq, i) => {
      const whole = full.get(seq);
      const e = whole ?? events.at(seq);
      const texts = whole ? eventTexts(whole) : inMemory[i];
      if (!e || !texts) return;
      if (texts.some((t) => t.elided)) partial++;
      scan(seq, e, texts);
    });
  }
  return { total, partial, matches };

  function scan(seq: number, e: LogEvent, texts: readonly EventText[]): void {
    for (const t of texts) {
      const m = pattern.exec(t.text);
      if (!m) continue;
      total++;
      if (matches.length >= max) continue;
      const own = e.kind === 'response' ? requestById.get(e.request) : undefined;
      // Else the first request at or after the event: the first that can show it.
      const request = own ?? state.requests[lowerBoundBy(state.requests, seq)]?.index ?? null;
      matches.push({
        seq, kind: e.kind, branch: e.branch ?? MAIN_BRANCH, request, item: e.kind === 'item' ? e.item.id : null, where: t.where,
        ...snippetAround(t.text, m.index, m[0].length),
      });
    }
  }
}
