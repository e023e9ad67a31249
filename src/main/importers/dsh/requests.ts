import type { EventOf, Usage } from '../../../shared/model/event';
import type { JsonLine } from '../../reader/types';
import { mapFinish, mapUsage } from './blocks';
import type { DshEvent } from './decode';
import { type Obj, isObj, num, str } from './json';
import type { Out } from './out';

/**
 * Model calls of the agent loop. DSH logs no "request" event: a call shows as the
 * `assistant/chunk` stream of a step. A call starts at the first chunk after `step/start`, or
 * after a `finish` chunk in the same step (a retry or a recovery after compaction); its `finish`
 * chunk ends it. The `request` event is emitted right before the first chunk's record, the
 * `response` right after the finish chunk's record.
 *
 * Usage comes from the call's last `usage` chunk. When a call finishes without one, the response
 * waits for the next event: a following `assistant/message` of the same step lends its `usage`.
 */

interface Open {
  readonly id: string;
  readonly turn: number | undefined;
  readonly step: number | undefined;
  usage?: Usage;
  /** Line of the first chunk, for findings about an unfinished call. */
  readonly line: number;
}

interface Pending {
  readonly event: EventOf<'response'>;
  readonly turn: number | undefined;
  readonly step: number | undefined;
  readonly from: JsonLine;
}

export interface LastFinish {
  readonly raw: string;
  readonly code: string | undefined;
}

export class RequestTracker {
  private open: Open | null = null;
  private pending: Pending | null = null;
  /** The latest finish of each turn (compaction triggers read it). */
  private readonly lastFinish = new Map<number, LastFinish>();

  constructor(private readonly out: Out) {}

  lastFinishOf(turn: number): LastFinish | undefined {
    return this.lastFinish.get(turn);
  }

  /** Called first for every DSH event: settles a deferred response, or a call cut short. */
  beforeEvent(ev: DshEvent): void {
    const data = isObj(ev.data) ? ev.data : {};
    const sameStep = (turn: number | undefined, step: number | undefined): boolean =>
      ev.type === 'assistant/message' && num(data.turn) === turn && num(data.step) === step;
    if (this.pending) {
      const p = this.pending;
      this.pending = null;
      if (sameStep(p.turn, p.step)) {
        const usage = mapUsage(data.usage);
        if (usage) p.event.usage = usage;
      }
      this.out.emit(p.event, p.from);
    }
    if (this.open && sameStep(this.open.turn, this.open.step)) {
      // The step's message arrived before any finish: a stream cut short (DSH marks a turn
      // cancelled mid-stream with `interrupted: true`).
      const o = this.open;
      this.open = null;
      const response: EventOf<'response'> = { kind: 'response', request: o.id };
      if (data.interrupted === true) response.finish = { raw: 'interrupted', reason: 'cancelled' };
      const usage = mapUsage(data.usage) ?? o.usage;
      if (usage) response.usage = usage;
      if (ev.time !== undefined) response.at = ev.time;
      this.out.emit(response);
    }
  }

  stepStart(): void {
    this.abandon('a new step started');
  }

  /** Before a chunk's record: opens a call when none is open for its step. */
  beforeChunk(ev: DshEvent): void {
    const data = isObj(ev.data) ? ev.data : {};
    const turn = num(data.turn);
    const step = num(data.step);
    if (this.open && (this.open.turn !== turn || this.open.step !== step))
      this.abandon(`a chunk of turn ${turn ?? '?'} step ${step ?? '?'} arrived`);
    if (!this.open) {
      const id = this.out.nextRequestId();
      this.open = { id, turn, step, line: this.out.line.line };
      const request: EventOf<'request'> = { kind: 'request', id, purpose: 'agent' };
      if (ev.time !== undefined) request.at = ev.time;
      this.out.emit(request);
    }
  }

  /** After a chunk's record: collects usage, and answers the call at its finish. */
  afterChunk(ev: DshEvent, chunk: Obj | undefined): void {
    const o = this.open;
    if (!o || !chunk) return;
    if (chunk.type === 'usage') {
      const usage = mapUsage(chunk.usage);
      if (usage) o.usage = usage;
      return;
    }
    if (chunk.type !== 'finish') return;
    this.open = null;
    const { finish, error } = mapFinish(chunk.reason);
    const response: EventOf<'response'> = { kind: 'response', request: o.id, finish };
    if (error) response.error = error;
    if (ev.time !== undefined) response.at = ev.time;
    if (o.turn !== undefined) this.lastFinish.set(o.turn, { raw: finish.raw, code: error?.code });
    if (o.usage) {
      response.usage = o.usage;
      this.out.emit(response);
    } else {
      this.pending = { event: response, turn: o.turn, step: o.step, from: this.out.line };
    }
  }

  /** The file ended. */
  end(): void {
    if (this.pending) {
      const p = this.pending;
      this.pending = null;
      this.out.emit(p.event, p.from);
    }
    this.abandon('the log ended');
  }

  private abandon(why: string): void {
    const o = this.open;
    if (!o) return;
    this.open = null;
    this.out.report(
      'DSH_UNFINISHED_REQUEST',
      'info',
      `The model call ${o.id} (first chunk at line ${o.line}) has no finish chunk before ${why}: its response is not recorded.`,
      [],
      o.line,
    );
  }
}

/** The chunk of an `assistant/chunk` event, when it has one. */
export function chunkOf(ev: DshEvent): Obj | undefined {
  const data = isObj(ev.data) ? ev.data : undefined;
  return data && isObj(data.chunk) && str(data.chunk.type) !== undefined ? data.chunk : undefined;
}
