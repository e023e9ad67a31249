/**
 * Long work written in steps: a generator that pauses now and then and says how far it has got, so
 * that a caller on a busy thread (the app's host) can answer other questions between steps, while
 * the CLI and tests simply run it to its end.
 */
export interface Steps {
  readonly done: number;
  readonly total: number;
}

/** Runs work in steps to its end, at once. */
export function runToEnd<Y, T>(steps: Generator<Y, T, void>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}
