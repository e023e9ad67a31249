/*
 * The Conversation Compaction article's circuit breaker around compaction failures: "Maintain a
 * per-session counter of consecutive failures. Trip at N=3 ... When tripped, do not retry
 * compaction; fall back to a degraded strategy ... After M turns of cool-down, reset." The
 * reference code's CompactorState and the order of its checks in maybe_compact(), as a pure state
 * machine (no clock, no I/O): a turn starts (and may reset a breaker whose cool-down has elapsed),
 * then one attempt reports success or failure. One re-run is one turn; the eval runner may carry
 * the state across runs.
 */

export const MAX_FAILURES = 3;
export const COOLDOWN_TURNS = 5;

export interface BreakerState {
  /** Turns started so far (the reference increments before anything else). */
  readonly turn: number;
  readonly consecutiveFailures: number;
  /** The turn at which the breaker tripped; null while closed. */
  readonly trippedAtTurn: number | null;
}

export const CLOSED: BreakerState = { turn: 0, consecutiveFailures: 0, trippedAtTurn: null };

export class CircuitBreaker {
  private s: BreakerState;

  constructor(
    readonly maxFailures = MAX_FAILURES,
    readonly cooldownTurns = COOLDOWN_TURNS,
    state: BreakerState = CLOSED,
  ) {
    this.s = { ...state };
  }

  get state(): BreakerState {
    return this.s;
  }

  /** Tripped: compaction is not attempted, the lossy truncation runs instead. */
  get open(): boolean {
    return this.s.trippedAtTurn !== null;
  }

  /** Start a turn. Returns true when the cool-down had elapsed and the breaker reset at this turn. */
  beginTurn(): boolean {
    const turn = this.s.turn + 1;
    const t = this.s.trippedAtTurn;
    if (t !== null && turn - t >= this.cooldownTurns) {
      this.s = { turn, consecutiveFailures: 0, trippedAtTurn: null };
      return true;
    }
    this.s = { ...this.s, turn };
    return false;
  }

  /** A failed attempt. Returns true when this failure tripped the breaker. */
  recordFailure(): boolean {
    const consecutiveFailures = this.s.consecutiveFailures + 1;
    const trips = this.s.trippedAtTurn === null && consecutiveFailures >= this.maxFailures;
    this.s = { ...this.s, consecutiveFailures, trippedAtTurn: trips ? this.s.turn : this.s.trippedAtTurn };
    return trips;
  }

  /** A committed summary resets the failure count. */
  recordSuccess(): void {
    this.s = { ...this.s, consecutiveFailures: 0 };
  }

  /** The state in words, for notes. */
  describe(): string {
    return this.open
      ? `circuit breaker open since turn ${this.s.trippedAtTurn} (resets at turn ${(this.s.trippedAtTurn as number) + this.cooldownTurns})`
      : `circuit breaker closed (${this.s.consecutiveFailures} of ${this.maxFailures} consecutive failures)`;
  }
}
