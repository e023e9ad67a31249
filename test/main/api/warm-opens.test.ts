import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHandlers, type HandlerTable } from '../../../src/main/api/handlers';
import { SessionRegistry } from '../../../src/main/api/sessions';
import { WARM_MS } from '../../../src/main/api/warm-opens';

// A host started with a session reads it before its page asks (HostOptions.warm): the page's open
// takes that read instead of starting another, and one nobody takes is let go.
const BASIC = 'fixtures/palimpsest/basic.jsonl';
const BRANCHES = 'fixtures/palimpsest/branches.jsonl';

let registry: SessionRegistry;
let handlers: HandlerTable;

afterEach(() => {
  vi.useRealTimers();
  handlers[Symbol.dispose]();
  registry.dispose();
});

function host(initialPaths: string[], warmOpens = true): void {
  registry = new SessionRegistry({ allow: 'any' });
  handlers = createHandlers({ registry, initialPaths, warmOpens, logError: () => undefined });
}

describe('opens begun before the page asks', () => {
  it('reads the first session the host was started with at once, and the first open takes the read', async () => {
    host([BASIC, BRANCHES]);
    // Nothing asked, and the first is read: the UI opens only that one at once.
    await vi.waitFor(() => expect(registry.size).toBe(1), { timeout: 5000, interval: 5 });
    await new Promise((r) => setTimeout(r, 50));
    expect(registry.size).toBe(1);
    const first = await handlers.openSession({ path: BASIC });
    if (!first.ok) throw new Error(first.error.message);
    // Taken, not opened again: still one session, and the one given is the one read.
    expect(registry.size).toBe(1);
    expect(registry.get(first.value.sessionId).path).toBe(BASIC);
    expect(first.value.counts.requests).toBe(10);
    // A second open of the same path is the caller's own.
    const second = await handlers.openSession({ path: BASIC });
    if (!second.ok) throw new Error(second.error.message);
    expect(second.value.sessionId).not.toBe(first.value.sessionId);
    expect(registry.size).toBe(2);
  });

  it('opens nothing before it is asked without it', async () => {
    host([BASIC], false);
    await new Promise((r) => setTimeout(r, 50));
    expect(registry.size + registry.opening().length).toBe(0);
    const r = await handlers.openSession({ path: BASIC });
    expect(r.ok).toBe(true);
    expect(registry.size).toBe(1);
  });

  it('lets go of a read nobody takes', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    host([BASIC]);
    await vi.waitFor(() => expect(registry.size).toBe(1), { timeout: 5000, interval: 5 });
    vi.advanceTimersByTime(WARM_MS + 1);
    await vi.waitFor(() => expect(registry.size).toBe(0), { timeout: 5000, interval: 5 });
  });

  it('leaves a failed read to the caller, whose open says why', async () => {
    host(['fixtures/does-not-exist.jsonl']);
    const r = await handlers.openSession({ path: 'fixtures/does-not-exist.jsonl' });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.code).toBe('UNREADABLE');
    expect(registry.size).toBe(0);
  });
});
