import type { Usage } from '../../../shared/model/event';

/** What a `token_usage_record` says of the response it belongs to. */
export interface RecordedUsage {
  readonly usage: Usage | undefined;
  /** The key of the thread's running total after it: the token_count reporting the same response has it. */
  readonly totalKey: string | undefined;
  /** The context size of the call, as a token_count would give it. */
  readonly context: number | undefined;
}

/** A call taken to write its response. */
export interface TakenCall {
  readonly id: string;
  /** Its `token_usage_record` (Codex 0.171+), for a call no token_count closes (./token-counts.ts). */
  readonly recorded: RecordedUsage | null;
}

/**
 * The one model call open in a rollout (its output items logged, its usage not reported yet),
 * owned here so that a call opens only when none is open and is taken once — by its usage
 * report, or by what closes it without one (an output item after inputs, the turn's end, an
 * abort, a compaction, the end of the file) — so its response is written once.
 */
export class OpenCall {
  private id: string | null = null;
  private sawInput_ = false;
  private roundAfterInput_ = false;
  private recorded_: RecordedUsage | null = null;

  /** A call is open. */
  get isOpen(): boolean {
    return this.id !== null;
  }

  /** An input (tool output, message) was logged after the open call's output items; false: none is open. */
  get sawInput(): boolean {
    return this.sawInput_;
  }

  /** A sampling round began (a `turn_context`) after an input was logged; false: none is open. */
  get roundAfterInput(): boolean {
    return this.roundAfterInput_;
  }

  /** The open call's `token_usage_record`, if one was read; null: none, or no call is open. */
  get recorded(): RecordedUsage | null {
    return this.recorded_;
  }

  /** Open a call; false (nothing changes) when one is open already. */
  open(id: string, recorded: RecordedUsage | null): boolean {
    if (this.id !== null) return false;
    this.id = id;
    this.sawInput_ = false;
    this.roundAfterInput_ = false;
    this.recorded_ = recorded;
    return true;
  }

  /** An input was logged: the open call (if any) is answered, and the next output item starts a new one. */
  input(): void {
    if (this.id !== null) this.sawInput_ = true;
  }

  /** A sampling round began: after an input, the next output item is another call's, whatever the order. */
  round(): void {
    if (this.sawInput_) this.roundAfterInput_ = true;
  }

  /** Keep the usage of the open call's response (if one is open), for when no token_count closes it. */
  record(r: RecordedUsage): void {
    if (this.id !== null) this.recorded_ = r;
  }

  /** Close the open call and give it; null when none is open. */
  take(): TakenCall | null {
    const id = this.id;
    if (id === null) return null;
    const taken = { id, recorded: this.recorded_ };
    this.id = null;
    this.sawInput_ = false;
    this.roundAfterInput_ = false;
    this.recorded_ = null;
    return taken;
  }
}
