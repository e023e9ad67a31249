import { afterEach } from 'vitest';
import { type MockProvider, type MockProviderOptions, type ScriptInput, startMockProvider } from '../../../src/main/mock';

/*
 * Shared by the mock provider's SDK tests: a mock per test, closed after it, and a fetch that keeps
 * the exact bodies an SDK sends so a test can compare them with the recording.
 */

const open: MockProvider[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((m) => m.dispose()));
});

export async function startMock(script: ScriptInput, opts: Omit<MockProviderOptions, 'script'> = {}): Promise<MockProvider> {
  const m = await startMockProvider({ script, ...opts });
  open.push(m);
  return m;
}

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** A fetch that records each request body (as the SDK handed it over) before sending it. */
export function spyFetch(): { fetch: FetchLike; bodies: string[] } {
  const bodies: string[] = [];
  const f: FetchLike = (input, init) => {
    const b = init?.body;
    bodies.push(typeof b === 'string' ? b : b instanceof Uint8Array ? Buffer.from(b).toString('utf8') : `<${typeof b}>`);
    return fetch(input, init);
  };
  return { fetch: f, bodies };
}

/** The rejection of a promise, or a failure when it resolves. */
export async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    if (e instanceof Error) return e;
    throw new Error(`rejected with a non-Error: ${String(e)}`, { cause: e });
  }
  throw new Error('expected a rejection, but the promise resolved');
}

/** Drains an async iterable, returning what it yielded and the error that ended it (null: clean end). */
export async function drain<T>(it: AsyncIterable<T>): Promise<{ items: T[]; error: Error | null }> {
  const items: T[] = [];
  try {
    for await (const x of it) items.push(x);
  } catch (e) {
    return { items, error: e instanceof Error ? e : new Error(String(e)) };
  }
  return { items, error: null };
}

/** Polls until `cond` holds or `ms` pass; returns whether it held. */
export async function eventually(cond: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return cond();
}
