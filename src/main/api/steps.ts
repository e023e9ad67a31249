import type { Steps } from '../../shared/steps';

/** A turn of the event loop: the answers and reads waiting get their turn. */
export const yieldToIo = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Runs work written in steps (a generator that pauses now and then, saying how far it got) to its
 * end on the host's thread, letting other requests in between steps and telling `onStep` how far
 * it has got. Seconds of replay or diagnostics then hold no other answer back for more than a step.
 */
export async function stepThrough<T>(steps: Generator<Steps, T, void>, onStep: (s: Steps) => void): Promise<T> {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    onStep(r.value);
    await yieldToIo();
  }
}
