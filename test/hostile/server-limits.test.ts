import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiFailure, SessionRegistry, type OpenSession } from '../../src/main/api/sessions';
import { BYTES_PER_FILE_BYTE } from '../../src/main/api/session-budget';

const SMALL = 'fixtures/palimpsest/api-small.jsonl';

let dir: string;
/** Distinct copies of one small session: opens of different files, so none shares a load. */
const copies: string[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'palimpsest-limits-'));
  for (let i = 0; i < 200; i++) {
    const p = join(dir, `s${i}.jsonl`);
    copyFileSync(SMALL, p);
    copies.push(p);
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const failureOf = (r: PromiseSettledResult<OpenSession>): ApiFailure => {
  expect(r.status).toBe('rejected');
  const reason = (r as PromiseRejectedResult).reason as unknown;
  expect(reason).toBeInstanceOf(ApiFailure);
  return reason as ApiFailure;
};

describe('session registry limits', () => {
  let registry: SessionRegistry;
  afterEach(() => registry.dispose());

  it('200 concurrent opens cannot race past the open-session limit: exactly 16 open', async () => {
    registry = new SessionRegistry({ allow: 'any', maxSessions: 16, memoryBudget: 1e12 });
    const results = await Promise.allSettled(copies.map((p) => registry.open(p)));
    const opened = results.filter((r) => r.status === 'fulfilled');
    expect(opened).toHaveLength(16);
    expect(registry.size).toBe(16);
    const refusals = results.filter((r) => r.status === 'rejected').map(failureOf);
    expect(refusals).toHaveLength(184);
    for (const f of refusals) {
      expect(f.code).toBe('LIMIT');
      expect(f.message).toMatch(/Too many sessions open.*close one/);
    }
    // Closing one frees its slot, and only one.
    registry.close((opened[0] as PromiseFulfilledResult<OpenSession>).value.id);
    const again = await Promise.allSettled(copies.slice(100, 110).map((p) => registry.open(p)));
    expect(again.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  });

  it('an open that fails gives its slot back', async () => {
    registry = new SessionRegistry({ allow: 'any', maxSessions: 2, memoryBudget: 1e12 });
    const missing = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => registry.open(join(dir, `none${i}.jsonl`))));
    for (const r of missing) expect(failureOf(r).code).toMatch(/^(UNREADABLE|LIMIT)$/);
    const ok = await Promise.allSettled([registry.open(copies[0] ?? ''), registry.open(copies[1] ?? '')]);
    expect(ok.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
  });

  it('the memory budget refuses a load that would exceed it, before loading, with a typed error', async () => {
    const cost = Math.ceil(statSync(SMALL).size * BYTES_PER_FILE_BYTE);
    // Room for three sessions, not four.
    registry = new SessionRegistry({ allow: 'any', maxSessions: 100, memoryBudget: cost * 3 + cost / 2 });
    const results = await Promise.allSettled(copies.slice(0, 20).map((p) => registry.open(p)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    for (const f of results.filter((r) => r.status === 'rejected').map(failureOf)) {
      expect(f.code).toBe('LIMIT');
      expect(f.message).toMatch(/Not enough memory budget to open .*close one first.*PALIMPSEST_MEMORY_BUDGET_MB/);
    }
    // Closing a session gives its share of the budget back.
    registry.close((results.find((r) => r.status === 'fulfilled') as PromiseFulfilledResult<OpenSession>).value.id);
    await expect(registry.open(copies[50] ?? '')).resolves.toBeDefined();
    await expect(registry.open(copies[51] ?? '')).rejects.toMatchObject({ code: 'LIMIT' });
  });

  it('a session alone is let in even when it is larger than the budget', async () => {
    registry = new SessionRegistry({ allow: 'any', memoryBudget: 10 });
    await expect(registry.open(copies[0] ?? '')).resolves.toBeDefined();
    await expect(registry.open(copies[1] ?? '')).rejects.toMatchObject({ code: 'LIMIT' });
  });

  it('concurrent opens of the same file share one load and one share of the budget', async () => {
    const cost = Math.ceil(statSync(SMALL).size * BYTES_PER_FILE_BYTE);
    // Room for one session's memory only: twenty opens of one file fit, a second file does not.
    registry = new SessionRegistry({ allow: 'any', maxSessions: 100, memoryBudget: cost + cost / 2 });
    const same = await Promise.all(Array.from({ length: 20 }, () => registry.open(copies[0] ?? '')));
    expect(new Set(same.map((s) => s.inspector)).size).toBe(1);
    expect(new Set(same.map((s) => s.id)).size).toBe(20);
    await expect(registry.open(copies[1] ?? '')).rejects.toMatchObject({ code: 'LIMIT' });
    // Closing one open leaves the others' session usable; the last close frees the memory.
    for (const s of same.slice(1)) registry.close(s.id);
    expect(registry.get(same[0]?.id ?? '').inspector.replay(same[0]?.inspector.defaultBranch ?? 'main').requests.length).toBeGreaterThan(0);
    registry.close(same[0]?.id ?? '');
    await expect(registry.open(copies[1] ?? '')).resolves.toBeDefined();
  });
});
