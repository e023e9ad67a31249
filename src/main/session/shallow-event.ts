import type { LogEvent } from '../../shared/model/event';

/** The compact log a shallow event reads the rest of itself from. */
export interface ShallowSource {
  /** The event with this seq, built from its line. */
  at(seq: number): LogEvent | undefined;
  branchAt(seq: number): string | undefined;
}

/**
 * What every event a compact log builds from its heads for replay (CompactLog.shallowAt) shares:
 * its seq, and the fields replay never reads — `at`, `branch` — read from the log when asked.
 * They are getters on the prototype, so a spread of the event leaves them out; nothing copies
 * these events (replay keeps what it decides with, not them).
 */
export abstract class ShallowEvent {
  readonly #log: ShallowSource;

  constructor(
    readonly seq: number,
    log: ShallowSource,
  ) {
    this.#log = log;
  }

  get at(): LogEvent['at'] {
    return this.#log.at(this.seq)?.at;
  }

  get branch(): string | undefined {
    return this.#log.branchAt(this.seq);
  }
}
