import type { JsonLine } from '../../reader/types';
import type { RolloutRecord } from './records';

export interface HeldLine {
  readonly l: JsonLine;
  readonly rec: RolloutRecord;
}

/**
 * Lines held back until the log says whose model call they are (Codex 0.171+):
 * - `reply`: an assistant message that starts a model call, and the usage lines after it. A
 *   `compacted` next whose summary is its text makes it the local summarizer's reply.
 * - `failed`: a `token_usage_record` at the very start of a turn (before the turn's user message,
 *   where only a pre-turn compaction calls the model), and the input and bookkeeping lines after
 *   it. A `task_complete` with an `error` next makes it a failed compaction's summarizer call.
 * Anything else releases the lines, which are then read as usual.
 */
export interface Hold {
  readonly kind: 'reply' | 'failed';
  /** The line that started the hold, then the ones held after it, in order. */
  readonly lines: readonly [HeldLine, ...HeldLine[]];
}

/** Lines held back while deciding whether a reply or a usage record is a compaction's summarizer call, at most. */
export const MAX_HOLD = 64;

/**
 * The one hold of a rollout, owned here so that its rules hold wherever it is used: a hold starts
 * only when none is open, always has its first line, never grows past MAX_HOLD, and ends by being
 * taken whole (the caller then reads its lines one way or the other).
 */
export class HeldLines {
  private kind_: Hold['kind'] | null = null;
  private lines: HeldLine[] = [];

  /** The open hold's kind; null: no lines are held. */
  get kind(): Hold['kind'] | null {
    return this.kind_;
  }

  /** Open a hold with its first line; false (nothing changes) when one is open already. */
  start(kind: Hold['kind'], l: JsonLine, rec: RolloutRecord): boolean {
    if (this.kind_ !== null) return false;
    this.kind_ = kind;
    this.lines = [{ l, rec }];
    return true;
  }

  /** Hold one more line; false when no hold is open or it is full (the caller then ends it). */
  add(l: JsonLine, rec: RolloutRecord): boolean {
    if (this.kind_ === null || this.lines.length >= MAX_HOLD) return false;
    this.lines.push({ l, rec });
    return true;
  }

  /** End the open hold and give its lines; null when none is open. */
  take(): Hold | null {
    const kind = this.kind_;
    const [first, ...rest] = this.lines;
    this.kind_ = null;
    this.lines = [];
    return kind === null || first === undefined ? null : { kind, lines: [first, ...rest] };
  }
}
