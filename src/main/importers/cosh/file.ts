import { basename } from 'node:path';
import type { EventOf } from '../../../shared/model/event';
import type { JsonLine } from '../../reader/types';
import { oneLine } from '../dsh/json';
import type { FileImport, ImportSink } from '../types';
import { CoshMachine } from './machine';
import { isDerivedSnapshot, legacyKind, parseEvent } from './parse';

/** Diagnostics of one rule written one by one before they are only counted. */
const MAX_EACH = 20;

interface Counted {
  count: number;
  line: number;
  seqs: number[];
}

/**
 * One cosh history file (`session-<root-id>.jsonl`) → canonical events. Lines that cosh would not
 * read are kept (as `record` or `unknown` events) and reported; valid events go to the machine.
 */
export class CoshFileImport implements FileImport {
  private readonly machine: CoshMachine;
  private sessionEmitted = false;
  private readonly unknown = new Map<string, Counted>();
  private bad: Counted | null = null;
  private legacy: Counted | null = null;
  private readonly fileSessionId: string | null;
  /** Branch of lines that name none (derived pages, legacy records): the first branch seen. */
  private rootBranch: string | undefined;

  constructor(
    private readonly sink: ImportSink,
    path: string,
  ) {
    const m = /^session-(.+)\.jsonl$/.exec(basename(path));
    this.fileSessionId = m ? (m[1] as string) : null;
    this.machine = new CoshMachine({
      dry: false,
      emit: (e, from) => sink.emit(e, from),
      report: (rule, severity, message, seqs = [], line = null) => sink.diagnostic({ rule, severity, message, seqs, line }),
      get nextSeq() {
        return sink.nextSeq;
      },
    });
  }

  private ensureSession(l: JsonLine): void {
    if (this.sessionEmitted) return;
    this.sessionEmitted = true;
    const v = l.value;
    const delta = typeof v.delta === 'object' && v.delta !== null ? (v.delta as Record<string, unknown>) : null;
    const meta =
      delta?.type === 'genesis' && typeof delta.metadata === 'object' && delta.metadata !== null
        ? (delta.metadata as Record<string, unknown>)
        : null;
    const id =
      typeof meta?.session_id === 'string'
        ? meta.session_id
        : (this.fileSessionId ?? (typeof v.branch_id === 'string' ? v.branch_id : 'cosh-session'));
    const e: EventOf<'session'> = { kind: 'session', id, harness: 'cosh' };
    if (meta && typeof v.branch_id === 'string') e.branch = v.branch_id;
    this.rootBranch = e.branch;
    if (typeof meta?.title === 'string') e.title = meta.title;
    if (typeof meta?.cwd === 'string') e.cwd = meta.cwd;
    this.sink.emit(e, l);
    this.sink.diagnostic({
      rule: 'COSH_UNLOGGED_CONTEXT',
      severity: 'info',
      line: null,
      seqs: [],
      message:
        'cosh does not persist its system prompt, its tool schemas, the per-request steering input or the tool-correction block it adds at the tail of each request; views show what the log holds (items, masks, checkpoints, plan). Requests are inferred: one before each model output.',
    });
  }

  private count(into: Counted | null, l: JsonLine, seq: number): Counted {
    const c = into ?? { count: 0, line: l.line, seqs: [] };
    c.count++;
    if (c.seqs.length < MAX_EACH) c.seqs.push(seq);
    return c;
  }

  line(l: JsonLine): void {
    this.ensureSession(l);
    const v = l.value;
    const derived = isDerivedSnapshot(v);
    if (derived) {
      // Derived snapshot pages: cosh's full replay ignores them by design.
      this.machine.flush();
      const r: EventOf<'record'> = { kind: 'record', type: derived, summary: 'derived snapshot (cosh ignores it on replay)' };
      if (this.rootBranch !== undefined) r.branch = this.rootBranch;
      this.sink.emit(r, l);
      return;
    }
    const parsed = parseEvent(v);
    if (parsed.ok) {
      this.machine.push(l, parsed.event);
      return;
    }
    this.machine.flush();
    const branch = parsed.branch ?? this.rootBranch;
    if (parsed.unknown !== null) {
      const u: EventOf<'unknown'> = { kind: 'unknown', type: parsed.unknown };
      if (branch !== undefined) u.branch = branch;
      const seq = this.sink.emit(u, l);
      this.unknown.set(parsed.unknown, this.count(this.unknown.get(parsed.unknown) ?? null, l, seq));
      return;
    }
    const legacy = legacyKind(v);
    if (legacy !== null) {
      const u: EventOf<'unknown'> = { kind: 'unknown', type: `legacy ${legacy}` };
      if (branch !== undefined) u.branch = branch;
      const seq = this.sink.emit(u, l);
      this.legacy = this.count(this.legacy, l, seq);
      return;
    }
    const r: EventOf<'record'> = { kind: 'record', type: 'corrupt', summary: `not a HistoryEvent: ${parsed.problem}` };
    if (branch !== undefined) r.branch = branch;
    const seq = this.sink.emit(r, l);
    this.bad = this.count(this.bad, l, seq);
    if (this.bad.count <= MAX_EACH) {
      this.sink.diagnostic({
        rule: 'COSH_BAD_RECORD',
        severity: 'error',
        line: l.line,
        seqs: [seq],
        message: `Line ${l.line}: not a HistoryEvent cosh can read (${oneLine(parsed.problem, 100)}); cosh skips it as corrupt. Kept as a record.`,
      });
    }
  }

  end(): void {
    this.machine.finish();
    if (this.bad && this.bad.count > MAX_EACH) {
      this.sink.diagnostic({
        rule: 'COSH_BAD_RECORD',
        severity: 'error',
        line: this.bad.line,
        seqs: this.bad.seqs,
        message: `${this.bad.count} lines in all are not HistoryEvents cosh can read (first at line ${this.bad.line}); the first ${MAX_EACH} are reported one by one.`,
      });
    }
    if (this.legacy) {
      const g = this.legacy;
      this.sink.diagnostic({
        rule: 'COSH_LEGACY',
        severity: 'warning',
        line: g.line,
        seqs: g.seqs,
        message: `${g.count} line${g.count === 1 ? '' : 's'} of cosh's pre-event format (a header, then Message/Item records; first at line ${g.line}); cosh replays them as a synthetic event zero, which Palimpsest does not rebuild. Kept as unknown events.`,
      });
    }
    for (const [type, u] of this.unknown) {
      this.sink.diagnostic({
        rule: 'UNKNOWN_RECORDS',
        severity: 'warning',
        line: u.line,
        seqs: u.seqs,
        message: `${u.count} record${u.count === 1 ? '' : 's'} with ${type}, which cosh @ 0033d518 does not define (first at line ${u.line}); cosh would not read such a line. Kept as unknown events; the view is built from the rest.`,
      });
    }
  }
}
