import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHandlers, type HandlerTable } from '../../../src/main/api/handlers';
import { SessionRegistry } from '../../../src/main/api/sessions';
import { PREPARE_MAX_BYTES, WARM_MS } from '../../../src/main/api/warm-opens';
import { PREPARED_MS } from '../../../src/shared/api/contract';

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

describe('opens begun because the user is reaching for a session (prepareSession)', () => {
  const prepared = async (path: string): Promise<string> => {
    const r = await handlers.prepareSession({ path });
    if (!r.ok) throw new Error(r.error.message);
    return r.value.prepared;
  };
  /** The paths the registry was asked to open, and the ids it was asked to close. */
  const watchRegistry = () => {
    const open = vi.spyOn(registry, 'open');
    const close = vi.spyOn(registry, 'close');
    return { opened: () => open.mock.calls.map((c) => c[0]), closed: () => close.mock.calls.map((c) => c[0]) };
  };

  it('reads the session pointed at, and the open that follows takes the read', async () => {
    host([], false);
    expect(await prepared(BASIC)).toBe('started');
    await vi.waitFor(() => expect(registry.size).toBe(1), { timeout: 5000, interval: 5 });
    expect(await prepared(BASIC)).toBe('waiting');
    const r = await handlers.openSession({ path: BASIC });
    if (!r.ok) throw new Error(r.error.message);
    expect(registry.size).toBe(1);
    expect(r.value.counts.requests).toBe(10);
    // Taken: a second open of the same path is the caller's own.
    const again = await handlers.openSession({ path: BASIC });
    expect(again.ok && again.value.sessionId).not.toBe(r.value.sessionId);
  });

  it('reads one guess at a time, the last one asked for once the one being read is in', async () => {
    host([], false);
    const { opened, closed } = watchRegistry();
    expect(await prepared(BASIC)).toBe('started');
    // Asked for while the first is read: it waits, and the first is let go once the next begins.
    expect(await prepared(BRANCHES)).toBe('next');
    expect(opened()).toEqual([BASIC]);
    await vi.waitFor(() => expect(opened()).toEqual([BASIC, BRANCHES]), { timeout: 5000, interval: 5 });
    await vi.waitFor(() => expect(closed()).toHaveLength(1), { timeout: 5000, interval: 5 });
    await vi.waitFor(() => expect(registry.size).toBe(1), { timeout: 5000, interval: 5 });
    // The open takes the second guess: nothing more is opened.
    const r = await handlers.openSession({ path: BRANCHES });
    if (!r.ok) throw new Error(r.error.message);
    expect(opened()).toEqual([BASIC, BRANCHES]);
    expect(registry.size).toBe(1);
    expect(registry.get(r.value.sessionId).path).toBe(BRANCHES);
  });

  it('lets the guess go when another session is opened', async () => {
    host([], false);
    const { closed } = watchRegistry();
    await prepared(BASIC);
    await vi.waitFor(() => expect(registry.size).toBe(1), { timeout: 5000, interval: 5 });
    const r = await handlers.openSession({ path: BRANCHES });
    if (!r.ok) throw new Error(r.error.message);
    await vi.waitFor(() => expect(closed()).toHaveLength(1), { timeout: 5000, interval: 5 });
    expect(registry.size).toBe(1);
    expect(registry.get(r.value.sessionId).path).toBe(BRANCHES);
  });

  it('opens another session even when the guess being read holds the last slot', async () => {
    registry = new SessionRegistry({ allow: 'any', maxSessions: 1 });
    handlers = createHandlers({ registry, initialPaths: [], logError: () => undefined });
    expect(await prepared(BASIC)).toBe('started');
    // At once: the guess is still being read, in the one slot there is.
    const r = await handlers.openSession({ path: BRANCHES });
    if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
    expect(registry.size).toBe(1);
    expect(registry.get(r.value.sessionId).path).toBe(BRANCHES);
  });

  it('lets a guess nobody takes go', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    host([], false);
    await prepared(BASIC);
    await vi.waitFor(() => expect(registry.size).toBe(1), { timeout: 5000, interval: 5 });
    vi.advanceTimersByTime(PREPARED_MS + 1);
    await vi.waitFor(() => expect(registry.size).toBe(0), { timeout: 5000, interval: 5 });
  });

  it('reads only files the host may open, and says nothing of those it may not', async () => {
    registry = new SessionRegistry({ allow: [BASIC] });
    handlers = createHandlers({ registry, initialPaths: [], logError: () => undefined });
    // Whether a path it may not open exists is not told: both answer alike, and nothing is read.
    expect(await prepared(BRANCHES)).toBe('not allowed');
    expect(await prepared('fixtures/does-not-exist.jsonl')).toBe('not allowed');
    expect(registry.size + registry.opening().length).toBe(0);
    expect(await prepared(BASIC)).toBe('started');
  });

  it('leaves folders and large files to the open', async () => {
    host([], false);
    const dir = mkdtempSync(join(tmpdir(), 'palimpsest-prepare-'));
    try {
      const large = join(dir, 'large.jsonl');
      // Sparse: its size is what is looked at, and nothing is read.
      writeFileSync(large, '');
      truncateSync(large, PREPARE_MAX_BYTES + 1);
      expect(await prepared(large)).toBe('too large');
      expect(await prepared(dir)).toBe('not a file');
      expect(registry.size + registry.opening().length).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
