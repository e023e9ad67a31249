import type { SearchMatch } from '../../shared/api/library-contract';
import type { LogEvent } from '../../shared/model/event';
import { kindAt, shallowAt, type EventLog } from '../../shared/model/event-log';
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

/**
 * A query that a line's raw JSON text holds whenever a text of its event does: no white space (the
 * texts of a tool call, a record and a tool schema join two fields with a space), and none of the
 * characters JSON writes as escapes (`"`, `\`, `/`, controls).
 */
function rawTextHolds(query: string): boolean {
  // eslint-disable-next-line no-control-regex
  return !/[\s"\\/\u0000-\u001f\u007f]/u.test(query);
}

/** A log that keeps some events as their lines' text (EventLog.lineText). */
type LineTextLog = EventLog & Required<Pick<EventLog, 'lineText'>>;

/**
 * On a log that keeps lines as text, whether the event at seq may hold the query, judged from its line's text
 * without parsing it: an item or a record line (their texts are the line's strings, nothing
 * added by defaults) with no \u escape that does not contain the query cannot. Else true.
 */
function mayHold(events: LineTextLog, seq: number, pattern: RegExp): boolean {
  const kind = kindAt(events, seq);
  if (kind !== 'item' && kind !== 'record') return true;
  const line = events.lineText(seq);
  return line === null || line.includes('\\u') || pattern.test(line);
}

export interface SearchOptions {
  /** Time allowed for re-reading long texts, in ms. Default 5 s. */
  readonly budgetMs?: number;
  readonly now?: () => number;
}

export async function searchSession(
  inspector: SessionInspector,
  query: string,
  branch: string,
  max: number,
  options: SearchOptions = {},
): Promise<SearchResult> {
  const now = options.now ?? Date.now;
  const deadline = now() + (options.budgetMs ?? 5000);
  const state = inspector.replay(branch);
  const events: EventLog = inspector.session.events;
  // A log that keeps lines as text (the compact log): most lines are ruled out on it, not parsed.
  const compact = events.lineText && rawTextHolds(query) ? (events as LineTextLog) : null;
  const requestById = new Map(state.requests.map((r) => [r.id, r.index]));
  const pattern = literalPattern(query);
  const matches: SearchMatch[] = [];
  let total = 0;
  let partial = 0;
  // Blocks of events: the long texts of a block are re-read together (LoadedSession.hydrateMany).
  for (let b = 0; b < state.seqs.length; b += SEARCH_BLOCK) {
    const block = state.seqs.slice(b, b + SEARCH_BLOCK);
    const inMemory = block.map((seq) => {
      if (compact && !mayHold(compact, seq, pattern)) return [];
      // Shallow: a compact log answers plain requests and responses from their heads.
      const e = shallowAt(events, seq);
      return e ? eventTexts(e) : null;
    });
    const elided = now() < deadline ? block.filter((_, i) => inMemory[i]?.some((t) => t.elided)) : [];
    const full = new Map<number, LogEvent>();
    if (elided.length > 0) (await inspector.session.hydrateMany(elided)).forEach((e, i) => full.set(elided[i] as number, e));
    block.forEach((seq, i) => {
      const whole = full.get(seq);
      const texts = whole ? eventTexts(whole) : inMemory[i];
      if (!texts || texts.length === 0) return;
      const e = whole ?? shallowAt(events, seq);
      if (!e) return;
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
        seq,
        kind: e.kind,
        branch: e.branch ?? MAIN_BRANCH,
        request,
        item: e.kind === 'item' ? e.item.id : null,
        where: t.where,
        ...snippetAround(t.text, m.index, m[0].length),
      });
    }
  }
}
