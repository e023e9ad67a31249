import type { CompactionTrigger, EventBody, EventOf, Route } from '../../../shared/model/event';
import type { Derivation } from '../../../shared/model/item';
import { mapBlocks, mapUsage } from './blocks';
import type { DshEvent } from './decode';
import { itemId } from './items';
import { type Obj, isObj, nat, nats, pos, str } from './json';
import type { Out } from './out';
import type { RequestTracker } from './requests';
import { jsonTextOf } from '../../../shared/json-depth';

/**
 * The compaction bracket (DeepSeek Harness's packages/compaction/compaction/src/types.ts):
 * `compaction/start`, `compaction/summary` (log-only: the summarizer call and its result), the
 * checkpoint `user/message` that replaces the shadowed range, `compaction/end`. Model-free pruning
 * logs `compaction/prune` right before the replacing `tool/result`. Each handler returns the
 * canonical seq of the event that stands for the DSH event, or a sentence saying what is missing
 * (the importer reports it and keeps a record).
 */

interface Bracket {
  readonly line: number;
  /** DSH seqs of the surface nodes the summary shadows. */
  shadowed?: readonly number[];
  /** A checkpoint user/message with this compaction id was seen. */
  committed: boolean;
  /** Opened by a later event of the bracket, its start missing (already reported). */
  readonly orphan?: true;
}

export interface PendingPrune {
  readonly shadowedSeqs: readonly number[];
  readonly line: number;
}

export type Handled = number | string;

export class CompactionTracker {
  private readonly open = new Map<string, Bracket>();
  private prune: PendingPrune | null = null;

  constructor(
    private readonly out: Out,
    private readonly requests: RequestTracker,
    /** Whether a DSH seq names a surface item of this file. */
    private readonly isItem: (dshSeq: number) => boolean,
  ) {}

  private at<T extends EventBody>(e: T, ev: DshEvent): T {
    if (ev.time !== undefined) e.at = ev.time;
    return e;
  }

  private bracket(id: string, type: string): Bracket {
    let b = this.open.get(id);
    if (!b) {
      this.out.report(
        'DSH_COMPACTION_ORPHAN',
        'warning',
        `Line ${this.out.line.line}: ${type} names compaction ${id}, which has no open compaction/start before it.`,
      );
      b = { line: this.out.line.line, committed: false, orphan: true };
      this.open.set(id, b);
    }
    return b;
  }

  private itemsOf(seqs: readonly number[]): string[] {
    const missing = seqs.filter((s) => !this.isItem(s));
    if (missing.length > 0) {
      this.out.report(
        'DSH_BAD_REF',
        'warning',
        `Line ${this.out.line.line}: shadowed seq${missing.length === 1 ? '' : 's'} ${missing.join(', ')} name${missing.length === 1 ? 's' : ''} no surface message of this file.`,
      );
    }
    return seqs.map(itemId);
  }

  start(ev: DshEvent, d: Obj): Handled {
    const id = str(d.compactionId);
    if (id === undefined) return 'compaction/start has no string "compactionId"';
    if (this.open.has(id)) {
      this.out.report(
        'DSH_COMPACTION_ORPHAN',
        'warning',
        `Line ${this.out.line.line}: compaction ${id} starts again before its compaction/end.`,
      );
    }
    this.open.set(id, { line: this.out.line.line, committed: false });
    const turn = nat(d.turn);
    let trigger: CompactionTrigger;
    // A manual /compact runs between turns (turn: null) or from a command.
    if (d.turn === null || str(d.sourceCommandId) !== undefined) trigger = 'manual';
    else if (turn !== undefined && this.requests.lastFinishOf(turn)?.code === 'CONTEXT_WINDOW_EXCEEDED') trigger = 'overflow';
    else trigger = 'auto';
    return this.out.emit(this.at({ kind: 'compaction/start', id, trigger }, ev));
  }

  private route(d: Obj): Route {
    const route: Route = {};
    const provider = str(d.provider);
    const model = str(d.model);
    const maxOutput = pos(d.maxTokens);
    if (provider !== undefined) route.provider = provider;
    if (model !== undefined) route.model = model;
    if (maxOutput !== undefined) route.maxOutput = maxOutput;
    return route;
  }

  /** The summarizer call: a compaction-purpose request over the shadowed items, and its response. */
  private call(ev: DshEvent, id: string, route: Route, items: string[], response: Omit<EventOf<'response'>, 'kind' | 'request'>): string {
    const request = this.out.nextRequestId();
    this.out.emit(
      this.at({ kind: 'request', id: request, purpose: 'compaction', compactionId: id, route, input: { items, instruction: null } }, ev),
    );
    this.out.emit(this.at({ kind: 'response', request, ...response }, ev));
    return request;
  }

  summary(ev: DshEvent, d: Obj): Handled {
    const id = str(d.compactionId);
    if (id === undefined) return 'compaction/summary has no string "compactionId"';
    const summary = mapBlocks(d.summary);
    if (summary === undefined) return 'compaction/summary has no "summary" array';
    const shadowed = nats(d.shadowedSeqs);
    if (shadowed === undefined) return 'compaction/summary has no "shadowedSeqs" array of seqs';
    const b = this.bracket(id, 'compaction/summary');
    b.shadowed = shadowed;
    const items = this.itemsOf(shadowed);
    const route = this.route(d);
    const usage = mapUsage(d.usage);
    const event: EventOf<'compaction/summary'> = { kind: 'compaction/summary', id, summary, source: items, route };
    const sourceTokens = nat(d.shadowedTokenCount);
    if (sourceTokens !== undefined) event.sourceTokens = sourceTokens;
    if (usage) event.usage = usage;
    // `llmStreamCall: true` says the summary came from a model call; a backend that summarizes
    // without one logs neither flag nor usage, and then no request is made up.
    if (d.llmStreamCall === true || usage) event.request = this.call(ev, id, route, items, usage ? { usage } : {});
    return this.out.emit(this.at(event, ev));
  }

  /**
   * `compaction/summary-error` belongs to the newer protocol of DeepSeek Harness ("failed summary
   * requests also reach synchronous compaction/summary-error"); its payload is not in the b150a551
   * source, so the error is read from `error` (string or {code, message}) or `failure`.
   */
  summaryError(ev: DshEvent, d: Obj): Handled {
    const id = str(d.compactionId);
    if (id === undefined) return 'compaction/summary-error has no string "compactionId"';
    const raw = d.error ?? d.failure;
    let error: { code?: string; message: string };
    if (typeof raw === 'string') error = { message: raw };
    else if (isObj(raw)) {
      const code = str(raw.code);
      const message = str(raw.message) ?? code ?? 'the summary failed';
      error = code === undefined ? { message } : { code, message };
    } else return 'compaction/summary-error has no "error"';
    const b = this.bracket(id, 'compaction/summary-error');
    const shadowed = nats(d.shadowedSeqs);
    if (shadowed) b.shadowed = shadowed;
    const items = shadowed ? this.itemsOf(shadowed) : [];
    const route = this.route(d);
    const usage = mapUsage(d.usage);
    this.call(ev, id, route, items, usage ? { error, usage } : { error });
    const event: EventOf<'compaction/summary-error'> = { kind: 'compaction/summary-error', id, error, route };
    if (usage) event.usage = usage;
    return this.out.emit(this.at(event, ev));
  }

  end(ev: DshEvent, d: Obj): Handled {
    const id = str(d.compactionId);
    if (id === undefined) return 'compaction/end has no string "compactionId"';
    const b = this.bracket(id, 'compaction/end');
    this.open.delete(id);
    const event: EventOf<'compaction/end'> = { kind: 'compaction/end', id, outcome: 'rejected' };
    if (d.error !== undefined) {
      event.outcome = 'failed';
      event.error = { message: typeof d.error === 'string' ? d.error : jsonTextOf(d.error) };
    } else if (b.committed) event.outcome = 'committed';
    return this.out.emit(this.at(event, ev));
  }

  /** `compaction/prune`: the importer keeps a record; the next replacing tool/result is the pruned copy. */
  notePrune(d: Obj): string | undefined {
    const shadowedSeqs = nats(d.shadowedSeqs);
    if (shadowedSeqs === undefined) return 'compaction/prune has no "shadowedSeqs" array of seqs';
    this.prune = { shadowedSeqs, line: this.out.line.line };
    return undefined;
  }

  /** The prune the current event may complete; cleared whatever the event is. */
  takePrune(): PendingPrune | null {
    const p = this.prune;
    this.prune = null;
    return p;
  }

  /**
   * The derivation of a checkpoint user/message: it covers the items its compaction's summary
   * shadowed, or else the surface messages its `sourceEventSeqs` cite.
   */
  checkpoint(id: string, sourceDshSeqs: readonly number[] | undefined): Derivation {
    const b = this.bracket(id, 'the checkpoint user/message');
    b.committed = true;
    const covered = b.shadowed ?? (sourceDshSeqs ?? []).filter((s) => this.isItem(s));
    return { kind: 'checkpoint', compactionId: id, covers: covered.map(itemId), part: 'summary' };
  }

  /** The file ended: brackets still open are reported. */
  finish(): void {
    for (const [id, b] of this.open) {
      if (b.orphan) continue;
      this.out.report(
        'DSH_COMPACTION_OPEN',
        'warning',
        `Compaction ${id} (started at line ${b.line}) has no compaction/end: the log stops inside the bracket (a crash, or a run still going).`,
        [],
        b.line,
      );
    }
    if (this.prune) {
      this.out.report(
        'DSH_PRUNE_UNMATCHED',
        'warning',
        `The compaction/prune at line ${this.prune.line} is not followed by a replacing tool/result.`,
        [],
        this.prune.line,
      );
    }
  }
}
