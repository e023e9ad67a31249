import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHandlers, type Handlers } from '../../../src/main/api/handlers';
import { SessionRegistry } from '../../../src/main/api/sessions';
import { Library } from '../../../src/main/library/library';
import { errorOf, value } from './results';

/*
 * healthReport and healthProgress over a library of copies of real sessions: the rows are built
 * once, regrouped without reading again; the machine's sessions come from the session index, what
 * it held painted first; and a host with no library says so.
 */

const CODEX = 'fixtures/codex/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl';

describe('health handlers', () => {
  let folder: string;
  let cache: string;
  let registry: SessionRegistry;
  let handlers: Handlers;
  const saved = process.env.PALIMPSEST_CACHE_DIR;

  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'palimpsest-health-lib-'));
    cache = mkdtempSync(join(tmpdir(), 'palimpsest-health-cache-'));
    process.env.PALIMPSEST_CACHE_DIR = cache;
    copyFileSync(CODEX, join(folder, 'codex.jsonl'));
    copyFileSync('fixtures/palimpsest/compaction-lifecycle.jsonl', join(folder, 'lifecycle.jsonl'));
    const library = new Library({ files: [], folders: [folder], machine: false });
    registry = new SessionRegistry({ allow: library });
    handlers = createHandlers({ registry, initialPaths: [], library });
  });
  afterEach(() => {
    registry.dispose();
    if (saved === undefined) delete process.env.PALIMPSEST_CACHE_DIR;
    else process.env.PALIMPSEST_CACHE_DIR = saved;
    rmSync(folder, { recursive: true, force: true });
    rmSync(cache, { recursive: true, force: true });
  });

  it('groups the library sessions and keeps their rows for the next grouping', async () => {
    const byDay = value(await handlers.healthReport({ by: 'day' }));
    expect(byDay.buckets.map((b) => b.key)).toEqual(['2026-02-23', '2026-09-13']);
    expect(byDay.total.compactions).toBe(5);
    expect(byDay.built).toBe(2);
    const p = value(await handlers.healthProgress({}));
    expect(p).toEqual({ running: false, done: 2, total: 2, cached: 0 });
    const byHarness = value(await handlers.healthReport({ by: 'harness' }));
    expect(byHarness.buckets.map((b) => b.key).sort()).toEqual(['codex', 'palimpsest']);
    // The same rows, regrouped: not read again.
    expect(byHarness.built).toBe(2);
    const again = value(await handlers.healthReport({ by: 'day', refresh: true }));
    expect([again.cached, again.built]).toEqual([2, 0]);
  });

  it("paints the machine's sessions from the session index at once, then its update's rows", async () => {
    const home = join(folder, 'home');
    const day = join(folder, 'codex', 'sessions', '2026', '02', '23');
    mkdirSync(home);
    mkdirSync(day, { recursive: true });
    copyFileSync(CODEX, join(day, CODEX.split('/').pop() as string));
    const machine = { env: { CODEX_HOME: join(folder, 'codex'), PALIMPSEST_CACHE_DIR: cache }, home, harnesses: ['codex' as const] };
    const host = () => {
      const library = new Library({ files: [], folders: [], machine });
      return createHandlers({ registry, initialPaths: [], library });
    };

    // Nothing indexed yet: the first answer waits for the rows.
    const cold = value(await host().healthReport({ by: 'day' }));
    expect([cold.updating, cold.total.sessions, cold.built, cold.cached]).toEqual([false, 1, 1, 0]);
    expect(existsSync(join(cache, 'index.db'))).toBe(true);

    // A new session appears; a new host paints the one the index holds, then both once the index is updated.
    copyFileSync(
      'fixtures/codex/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl',
      join(day, 'rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl'),
    );
    const warm = host();
    const first = value(await warm.healthReport({ by: 'day' }));
    expect([first.updating, first.total.sessions, first.cached]).toEqual([true, 1, 1]);
    const settled = value(await warm.healthReport({ by: 'day', settled: true }));
    expect([settled.updating, settled.total.sessions, settled.built, settled.cached]).toEqual([false, 2, 1, 1]);
    // Then the host keeps the rows: regrouping reads nothing.
    const byHarness = value(await warm.healthReport({ by: 'harness' }));
    expect([byHarness.updating, byHarness.buckets.map((b) => [b.key, b.sessions])]).toEqual([false, [['codex', 2]]]);
  });

  it('stops a build asked for again, and answers its callers with the new build', async () => {
    const home = join(folder, 'home');
    const day = join(folder, 'codex', 'sessions', '2026', '02', '23');
    mkdirSync(home);
    mkdirSync(day, { recursive: true });
    for (const f of [CODEX, 'fixtures/codex/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl'])
      copyFileSync(f, join(day, f.split('/').pop() as string));
    const machine = { env: { CODEX_HOME: join(folder, 'codex'), PALIMPSEST_CACHE_DIR: cache }, home, harnesses: ['codex' as const] };
    const host = createHandlers({ registry, initialPaths: [], library: new Library({ files: [], folders: [], machine }) });
    // The first build starts and is stopped by the second before it reads a session: the second
    // reads both, and the call waiting on the first is answered with the second's rows.
    const waiting = host.healthReport({ by: 'day', settled: true });
    const again = host.healthReport({ by: 'day', refresh: true });
    const [w, a] = [value(await waiting), value(await again)];
    expect([a.updating, a.total.sessions, a.built, a.cached]).toEqual([false, 2, 2, 0]);
    expect(w).toEqual(a);
    expect(value(await host.healthProgress({})).running).toBe(false);
  });

  it('rejects a bad grouping and answers NOT_AVAILABLE without a library', async () => {
    expect(errorOf(await handlers.healthReport({ by: 'week' } as never)).code).toBe('BAD_INPUT');
    const bare = createHandlers({ registry, initialPaths: [] });
    expect(errorOf(await bare.healthReport({ by: 'day' })).code).toBe('NOT_AVAILABLE');
  });
});
