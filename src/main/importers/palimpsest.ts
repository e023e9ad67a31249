import { CanonicalEvent, EVENT_KINDS, type EventBody } from '../../shared/model/event';
import { depthExceeds, jsonText, MAX_CONTENT_DEPTH } from '../../shared/json-depth';
import type { JsonLine } from '../reader/types';
import { fastEvent } from './palimpsest-fast';
import type { FileImport, FileInfo, ImportSink, Importer } from './types';
import { shown } from './shown';

export { fastEvent };

/**
 * The Palimpsest session format v1 (docs/format.md): one canonical event per line, first line a
 * `session` event with `format: "palimpsest"` and `version: 1`. Each line is validated with the
 * canonical zod schema; a line that fails is kept as an `unknown` event with an error diagnostic,
 * a kind that v1 does not define is kept as an `unknown` event and counted. Nothing is dropped.
 */

const KINDS: ReadonlySet<string> = new Set<string>(EVENT_KINDS);

/**
 * The kinds a log may keep as their line's bytes (`lineAlone`): nearly every event of a long
 * session, and the ones the fast check rebuilds for the cost of a parse (palimpsest-fast.ts).
 */
export const LINE_KINDS: ReadonlySet<string> = new Set(['item', 'request', 'response', 'record']);

/** Seqs cited by one UNKNOWN_RECORDS diagnostic, at most. */
const MAX_CITED = 20;

export type Converted =
  | { readonly ok: true; readonly event: EventBody; readonly badVersion?: unknown; readonly tooDeep?: readonly string[] }
  | { readonly ok: false; readonly event: EventBody; readonly unknownKind: string | null; readonly problem: string | null };

function describePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out === '' ? String(p) : `.${String(p)}`;
  }
  return out === '' ? '(the event)' : out;
}

/** The `unknown` event a line becomes when it is not a valid v1 event: its kind, branch and time kept. */
function unknownOf(value: Record<string, unknown>): EventBody {
  const type = value.kind === undefined ? '?' : typeof value.kind === 'string' ? value.kind : shown(value.kind);
  const ev: { kind: 'unknown'; type: string; branch?: string; at?: string | number } = { kind: 'unknown', type };
  if (typeof value.branch === 'string') ev.branch = value.branch;
  if (typeof value.at === 'string' || typeof value.at === 'number') ev.at = value.at;
  return ev;
}

/**
 * A header whose tool schemas nest deeper than MAX_CONTENT_DEPTH has each such schema kept as its
 * JSON text: as structure it would overflow the stack of everything that walks it (printing the
 * request, counting its tokens). Headers are few, so measuring their schemas costs nothing a load
 * would notice.
 */
function boundSchemas(event: EventBody, extra: { badVersion?: unknown }): Converted {
  if (event.kind !== 'header' || !event.tools?.some((t) => depthExceeds(t.inputSchema, MAX_CONTENT_DEPTH)))
    return { ok: true, event, ...extra };
  const tooDeep: string[] = [];
  const tools = event.tools.map((t) => {
    if (!depthExceeds(t.inputSchema, MAX_CONTENT_DEPTH)) return t;
    tooDeep.push(t.name);
    return { ...t, inputSchema: jsonText(t.inputSchema) };
  });
  return { ok: true, event: { ...event, tools }, ...extra, tooDeep };
}

/** Turn one parsed line into a canonical event. Pure: used by import and by rehydrate alike. */
export function convert(value: Record<string, unknown>): Converted {
  const kind = value.kind;
  if (typeof kind === 'string' && !KINDS.has(kind)) {
    return { ok: false, event: unknownOf(value), unknownKind: kind, problem: null };
  }
  const fast = fastEvent(value);
  if (fast !== null) return fast.kind === 'header' ? boundSchemas(fast, {}) : { ok: true, event: fast };
  let input: Record<string, unknown> = value;
  let badVersion: unknown;
  if (kind === 'session' && value.version !== undefined && value.version !== 1) {
    // A later (or garbled) version: warn and read what v1 understands.
    badVersion = value.version;
    const { version: _version, ...rest } = value;
    input = rest;
  }
  const parsed = CanonicalEvent.safeParse(input);
  if (parsed.success) return boundSchemas(parsed.data, badVersion === undefined ? {} : { badVersion });
  let problem: string;
  if (kind === undefined) problem = 'the line has no "kind"';
  else if (typeof kind !== 'string') problem = `"kind" must be a string, not ${shown(kind)}`;
  else {
    const issue = parsed.error.issues[0];
    problem = issue ? `${describePath(issue.path)}: ${issue.message}` : 'invalid event';
    const extra = parsed.error.issues.length - 1;
    if (extra > 0) problem += ` (and ${extra} more problem${extra === 1 ? '' : 's'})`;
  }
  return { ok: false, event: unknownOf(value), unknownKind: null, problem };
}

/** Seq references an event carries, as written in the file. */
function hasRefs(e: EventBody): boolean {
  return (e.kind === 'item' && e.sources !== undefined) || e.kind === 'fork' || e.kind === 'revert' || e.kind === 'rollback';
}

/** A copy of `e` with its seq references mapped through `canon`. */
function translateRefs(e: EventBody, canon: (s: number) => number): EventBody {
  switch (e.kind) {
    case 'item':
      return e.sources === undefined ? e : { ...e, sources: e.sources.map(canon) };
    case 'fork':
      return { ...e, parent: { ...e.parent, seq: canon(e.parent.seq) } };
    case 'revert':
    case 'rollback':
      return { ...e, target: { ...e.target, seq: canon(e.target.seq) } };
    default:
      return e;
  }
}

interface KindCount {
  count: number;
  line: number;
  seqs: number[];
}

class PalimpsestFileImport implements FileImport {
  private readonly sink: ImportSink;
  /** Canonical seq of this file's first event. */
  private readonly base: number;
  /** Events of this file so far: a line's position, the seq it has by line order within the file. */
  private index = 0;
  /** Position of the first line whose explicit seq disagreed with line order; null while none did. */
  private divergedAt: number | null = null;
  /** After divergence: the seq each line says it has → the canonical seq it got. */
  private readonly written = new Map<number, number>();
  private seqProblems = 0;
  private firstSeqProblem: { line: number; seq: number; expected: number; canonical: number } | null = null;
  private readonly unknown = new Map<string, KindCount>();

  constructor(sink: ImportSink) {
    this.sink = sink;
    this.base = sink.nextSeq;
  }

  private readonly canon = (s: number): number => {
    const mapped = this.written.get(s);
    if (mapped !== undefined) return mapped;
    if (this.divergedAt === null || s < this.divergedAt) return this.base + s;
    return s; // names no line of this file: left as written (replay reports it)
  };

  line(l: JsonLine): void {
    const value = l.value;
    // Read first: the event may be the line's own object, and the log sets its seq.
    const written = value.seq;
    const position = this.index++;
    if (position === 0 && value.kind !== 'session') {
      this.sink.diagnostic({
        rule: 'PALIMPSEST_NO_SESSION',
        severity: 'warning',
        line: l.line,
        seqs: [],
        message: `Line ${l.line}: a Palimpsest session file starts with a "session" event; this one starts with ${typeof value.kind === 'string' ? `"${value.kind}"` : 'a line without a kind'}.`,
      });
    }
    const c = convert(value);
    let event = c.event;
    if (c.ok) {
      if ((this.base !== 0 || this.divergedAt !== null) && hasRefs(event)) event = translateRefs(event, this.canon);
      // The canonical seq is line order; a written seq that disagrees is not carried over.
      if (event.seq !== undefined && event.seq !== this.sink.nextSeq) event = { ...event, seq: this.sink.nextSeq };
    }
    // `lineEvent` gives this event again from the line alone: nothing above changed it.
    const lineAlone = c.ok && event === c.event && LINE_KINDS.has(event.kind);
    const seq = this.sink.emit(event, l, undefined, lineAlone);
    this.checkSeq(written, position, seq, l.line);

    if (c.ok) {
      if (c.badVersion !== undefined) {
        this.sink.diagnostic({
          rule: 'PALIMPSEST_VERSION',
          severity: 'warning',
          line: l.line,
          seqs: [seq],
          message: `Line ${l.line}: the session says version ${shown(c.badVersion)}; this reader knows version 1 and reads the fields version 1 defines.`,
        });
      }
      if (c.tooDeep !== undefined) {
        this.sink.diagnostic({
          rule: 'PALIMPSEST_TOO_DEEP',
          severity: 'warning',
          line: l.line,
          seqs: [seq],
          message: `Line ${l.line}: the input schema of ${c.tooDeep.map((n) => `"${n}"`).join(', ')} nests more than ${MAX_CONTENT_DEPTH} levels deep; it is kept as its JSON text.`,
        });
      }
      return;
    }
    if (c.unknownKind !== null) {
      let k = this.unknown.get(c.unknownKind);
      if (!k) {
        k = { count: 0, line: l.line, seqs: [] };
        this.unknown.set(c.unknownKind, k);
      }
      k.count++;
      if (k.seqs.length < MAX_CITED) k.seqs.push(seq);
      return;
    }
    this.sink.diagnostic({
      rule: 'PALIMPSEST_BAD_EVENT',
      severity: 'error',
      line: l.line,
      seqs: [seq],
      message: `Line ${l.line} is not a valid Palimpsest event: ${c.problem ?? 'invalid event'}. It is kept as an unknown event.`,
    });
  }

  /**
   * Takes the events another thread imported from the lines that follow (PalimpsestRangeImport,
   * nothing to report among them), as if this import had read them: possible only while nothing
   * is translated (the session's first file, seqs not diverged), past the first line, and when the
   * lines' written seqs, if any, count on from here (`anchor`: the seq the range's first line
   * would have written).
   */
  adopt(events: number, anchor: number | null): boolean {
    if (this.base !== 0 || this.divergedAt !== null || this.index === 0) return false;
    if (anchor !== null && anchor !== this.index) return false;
    this.index += events;
    return true;
  }

  /** Explicit seqs must count from 0 in line order; the canonical seq is line order regardless. */
  private checkSeq(written: unknown, position: number, canonical: number, line: number): void {
    if (written === undefined) {
      if (this.divergedAt !== null) this.written.set(position, canonical);
      return;
    }
    if (written === position && this.divergedAt === null) return;
    if (typeof written === 'number' && Number.isInteger(written)) {
      if (this.divergedAt === null) this.divergedAt = position;
      this.written.set(written, canonical);
    }
    if (written === position) return;
    this.seqProblems++;
    this.firstSeqProblem ??= { line, seq: typeof written === 'number' ? written : NaN, expected: position, canonical };
  }

  end(): void {
    const p = this.firstSeqProblem;
    if (p) {
      const n = this.seqProblems;
      this.sink.diagnostic({
        rule: 'PALIMPSEST_SEQ',
        severity: 'warning',
        line: p.line,
        seqs: [p.canonical],
        message: `${n} line${n === 1 ? '' : 's'} carr${n === 1 ? 'ies' : 'y'} a "seq" that does not count from 0 in line order (first at line ${p.line}: ${Number.isNaN(p.seq) ? 'not an integer' : p.seq}, expected ${p.expected}). Line order is used; references to written seqs are mapped to the lines that carry them.`,
      });
    }
    for (const [kind, k] of this.unknown) {
      this.sink.diagnostic({
        rule: 'UNKNOWN_RECORDS',
        severity: 'warning',
        line: k.line,
        seqs: k.seqs,
        message: `${k.count} line${k.count === 1 ? '' : 's'} of kind "${kind}", which Palimpsest format v1 does not define (first at line ${k.line}); kept as unknown events.`,
      });
    }
  }
}

export const palimpsestImporter: Importer = {
  id: 'palimpsest',
  label: 'Palimpsest session format v1',

  sniff(first: readonly Record<string, unknown>[]): number {
    const head = first[0];
    if (!head) return 0;
    if (head.kind === 'session' && head.format === 'palimpsest') return 1;
    let known = 0;
    for (const r of first) if (typeof r.kind === 'string' && KINDS.has(r.kind)) known++;
    if (known === 0) return 0;
    const share = known / first.length;
    // Canonical kinds without the format marker: likely ours, never as sure as the marker.
    return head.kind === 'session' ? 0.5 + 0.3 * share : 0.6 * share;
  },

  open(_file: FileInfo, sink: ImportSink): FileImport {
    return new PalimpsestFileImport(sink);
  },

  lineEvent(line: Record<string, unknown>): EventBody | null {
    const c = convert(line);
    return c.ok ? c.event : null;
  },

  rehydrate(event: EventBody, line: Record<string, unknown>): EventBody | null {
    const c = convert(line);
    if (c.event.kind !== event.kind) return null;
    if (!c.ok) return c.event.kind === 'unknown' && event.kind === 'unknown' && c.event.type === event.type ? c.event : null;
    // The seq and the seq references were mapped to canonical seqs at import; keep those.
    let out: EventBody = c.event;
    if (out.kind === 'item' && event.kind === 'item' && event.sources !== undefined) out = { ...out, sources: event.sources };
    else if (out.kind === 'fork' && event.kind === 'fork') out = { ...out, parent: event.parent };
    else if ((out.kind === 'revert' && event.kind === 'revert') || (out.kind === 'rollback' && event.kind === 'rollback'))
      out = { ...out, target: event.target };
    if (out.seq !== event.seq) {
      if (event.seq === undefined) {
        const { seq: _seq, ...rest } = out;
        out = rest as EventBody;
      } else out = { ...out, seq: event.seq };
    }
    return out;
  },
};
