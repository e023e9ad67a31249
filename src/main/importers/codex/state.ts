import type { UsageOrder } from '../../dialects/codex-usage-order';
import type { Severity } from '../../../shared/model/diagnostic';
import type { EventBody, EventOf, Route } from '../../../shared/model/event';
import type { JsonLine } from '../../reader/types';
import type { ImportSink } from '../types';
import type { ItemInfo } from './history';
import { CompactionBracket } from './compaction-bracket';
import { HeldLines } from './held-lines';
import type { PlacedPiece } from './history-bridge';
import { OpenCall } from './open-call';
import { TurnTracker } from './turn-tracker';
import type { SummarizerReply } from './summarizer';
import { WaitingUsage } from './waiting-usage';

/** Seqs cited by one aggregated diagnostic, at most. */
const MAX_CITED = 20;

interface UnknownCount {
  count: number;
  readonly line: number;
  readonly seqs: number[];
}

/**
 * One rollout file's cross-line state, and the plumbing every part of the import writes through
 * (events, diagnostics, records). See `index.ts` for the mapping rules; the parts are: the live
 * history (./history.ts), the open model call (./calls.ts) and its usage (./token-counts.ts), the
 * open turn (./turns.ts; counted by ./turn-tracker.ts), held-back context messages
 * (./context-block.ts) and summarizer lines (./summarizer.ts), and what compactions need
 * (./compacted.ts: content fingerprints, the last reported context size; Codex's own estimates
 * in ./compaction-bracket.ts).
 */
export class CodexState {
  cur: JsonLine = { value: {}, line: 0, offset: 0, length: 0 };
  at: string | undefined;
  lines = 0;

  sessionEmitted = false;
  sessionId: string | undefined;
  /** `cli_version` of the session_meta: which rule an older Codex rebuilt a compacted history by. */
  version: string | undefined;
  forkParent: string | undefined;

  /** Live history: item ids in surface order, and the seq of each. */
  live: string[] = [];
  liveSeqs: number[] = [];
  /** Messages (and context items): what rollbacks, matching and legacy rebuilds need to know. */
  readonly infos = new Map<string, ItemInfo>();
  /** Content fingerprint → ids of messages with that content, oldest first. */
  readonly byKey = new Map<string, string[]>();

  /** The model call whose output items are being read. */
  readonly call = new OpenCall();
  /** A usage report waiting for the call that claims it. */
  readonly pending = new WaitingUsage();
  requestCount = 0;
  lastUsageKey = '';
  /** `last_token_usage.total_tokens` of the latest model call: the context size Codex compacts on. */
  lastContext: number | undefined;
  /** The open compaction bracket, and Codex's own estimates of the history around it. */
  readonly compaction = new CompactionBracket();
  window: number | undefined;
  route: Route = {};

  /** The open turn, its counts, and what happened since the last one ended. */
  readonly turn = new TurnTracker();
  /** Where this rollout writes a call's usage (src/main/dialects/codex-usage-order.ts); null: not known yet. */
  usageOrder: UsageOrder | null = null;
  /** The type of the last response item placed live (`function_call_output`, `message`, …). */
  lastPlaced: string | undefined;

  /** Messages logged outside a turn, held until the next record says what they are. */
  block: JsonLine[] = [];
  /** The messages being placed belong to a context block (recorded right before a turn starts). */
  contextBlock = false;
  contextIds: ItemInfo[] = [];
  /** The latest initial-context block: what a legacy compaction re-injects. */
  initialContext: ItemInfo[] = [];
  initialContextLine: number | undefined;
  /** The pieces of history bridges (Codex 0.47), by item id: the next bridge holds their text again. */
  readonly bridges = new Map<string, PlacedPiece>();

  readonly unknown = new Map<string, UnknownCount>();
  readonly scratch: string[] = [];
  contextSummary = { key: '', text: '' };
  withoutOutput: { count: number; line: number } | null = null;
  /** Lines held back while it is not yet known whose model call they are. */
  readonly held = new HeldLines();
  summarizer: SummarizerReply | null = null;
  /** Usage reports being read belong to a compaction's summarizer call already accounted for. */
  absorbing = false;

  constructor(
    readonly sink: ImportSink,
    readonly path: string,
  ) {}

  emit(event: EventBody, from: JsonLine = this.cur, at: string | undefined = this.at): number {
    if (at !== undefined && event.at === undefined) event.at = at;
    return this.sink.emit(event, from);
  }

  report(rule: string, severity: Severity, message: string, seqs: number[] = [], line: number | null = this.cur.line): void {
    this.sink.diagnostic({ rule, severity, message, seqs, line });
  }

  record(type: string, summary?: string): number {
    const r: EventOf<'record'> = { kind: 'record', type };
    if (summary !== undefined) r.summary = summary;
    return this.emit(r);
  }

  /** A record with fields missing or of the wrong type: reported, and kept as a record. */
  bad(type: string, problem: string): void {
    this.report('CODEX_BAD_RECORD', 'error', `Line ${this.cur.line}: ${problem}. It is kept as a record and left out of the model view.`);
    this.record(type, `malformed: ${problem}`);
  }

  unknownEvent(type: string): void {
    const seq = this.emit({ kind: 'unknown', type });
    this.countUnknown(type, seq);
  }

  countUnknown(type: string, seq: number | null): void {
    let u = this.unknown.get(type);
    if (!u) {
      u = { count: 0, line: this.cur.line, seqs: [] };
      this.unknown.set(type, u);
    }
    u.count++;
    if (seq !== null && u.seqs.length < MAX_CITED) u.seqs.push(seq);
  }

  notes(notes: readonly string[]): void {
    if (notes.length === 0) return;
    this.report(
      'CODEX_BAD_CONTENT',
      'warning',
      `Line ${this.cur.line}: ${notes[0] ?? ''}${notes.length > 1 ? ` (and ${notes.length - 1} more)` : ''}.`,
    );
  }
}
