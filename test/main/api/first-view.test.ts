import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureClaudeBig } from '../../../bench/claude';
import { createHandlers, type Handlers } from '../../../src/main/api/handlers';
import type { FirstViewOptions } from '../../../src/main/api/first-view';
import { SessionRegistry } from '../../../src/main/api/sessions';
import { closeSessionTokens } from '../../../src/main/api/session/tokens';
import { loadSession } from '../../../src/main/session/load';
import type { OpenSessionProgress, ProgressEvent } from '../../../src/shared/api/contract';
import { expectSameEvents } from '../session/same-session';
import { value } from './results';

/*
 * The first view of a large session (src/main/api/first-view.ts), with the cut lowered so that a
 * real Claude Code session twice over (the bench's way of making a large one from real lines) is
 * "large": the first view is marked partial and withholds its findings, the whole session then
 * takes its place under the same id and answers as a fresh whole load does, and closing the
 * session while the whole is read stops that read.
 */

const dir = mkdtempSync(join(tmpdir(), 'palimpsest-first-view-'));
let big: string;
const FIRST = { minBytes: 1_000_000, prefixBytes: 1_000_000 };

beforeAll(() => {
  // Two copies of the 3.2 MB sample, each copy's ids rewritten: 6.3 MB of real lines.
  big = ensureClaudeBig(dir, 5_000_000);
});
afterAll(async () => {
  await closeSessionTokens();
  rmSync(dir, { recursive: true, force: true });
});

function host(firstView: FirstViewOptions | null): {
  registry: SessionRegistry;
  h: Handlers;
  heard: OpenSessionProgress[];
} {
  const heard: OpenSessionProgress[] = [];
  const registry = new SessionRegistry({ allow: 'any', captureDiscovery: null, firstView });
  const onProgress = (e: ProgressEvent): void => {
    if (e.operation === 'openSession') heard.push(e);
  };
  return { registry, h: createHandlers({ registry, initialPaths: [], onProgress }), heard };
}

describe('the first view of a large session', () => {
  it('is marked partial, withholds its findings, and is replaced by the whole session under its id', async () => {
    // The whole is held back until the first view has been looked at.
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const { registry, h, heard } = host({ ...FIRST, holdWhole: () => held });
    const whole = host(null);
    try {
      const first = value(await h.openSession({ path: big }));
      const size = statSync(big).size;
      expect(first.partial).toBeDefined();
      const partial = first.partial as NonNullable<typeof first.partial>;
      expect(partial.total).toBe(size);
      expect(partial.read).toBeGreaterThanOrEqual(FIRST.prefixBytes);
      expect(partial.read).toBeLessThan(size);
      expect(partial.error).toBeNull();
      // The counts are the prefix's: the file as read, no findings, and fewer requests than the whole.
      expect(first.files.map((f) => f.bytes)).toEqual([partial.read]);
      expect(first.counts.diagnostics).toEqual({ error: 0, warning: 0, info: 0 });
      const findings = value(await h.listDiagnostics({ sessionId: first.sessionId }));
      expect(findings.withheld).toBe(true);
      expect(findings.diagnostics).toEqual([]);
      const firstRequests = value(await h.listRequests({ sessionId: first.sessionId })).requests;
      expect(firstRequests.length).toBe(first.counts.requests);
      expect(firstRequests.length).toBeGreaterThan(0);
      // The first view's views answer while the rest loads.
      expect(value(await h.getViewHead({ sessionId: first.sessionId, index: 0 })).items).toBeGreaterThan(0);
      // Its texts are not counted (the whole is, once in): its meter says its figures are estimates.
      const meter = value(await h.getTokenMeter({ sessionId: first.sessionId, index: 0 }));
      expect(meter.counting).toEqual({ state: 'estimate', refs: 0, totalRefs: 0, error: null });
      expect(meter.total).toBeGreaterThan(0);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(value(await h.getTokenMeter({ sessionId: first.sessionId, index: 0 })).counting.state).toBe('estimate');
      // The open is still listed while the whole is read.
      expect(registry.opening().map((p) => p.path)).toEqual([big]);

      release();
      await registry.untilWhole(first.sessionId, 120_000);
      const after = value(await h.getSessionInfo({ sessionId: first.sessionId }));
      expect(after.partial).toBeUndefined();
      // The whole session's texts are counted.
      expect(value(await h.getTokenMeter({ sessionId: first.sessionId, index: 0 })).counting.state).not.toBe('estimate');
      expect(registry.opening()).toEqual([]);
      // Progress went on after the first view was shown, to the end.
      expect(heard.at(-1)?.phase).toBe('done');
      expect(heard.filter((e) => e.phase === 'reading' && (e.done ?? 0) > partial.read).length).toBeGreaterThan(0);

      // The whole session answers as a fresh whole load of the file does.
      const fresh = value(await whole.h.openSession({ path: big }));
      expect(fresh.partial).toBeUndefined();
      const { sessionId: _a, ...afterRest } = after;
      const { sessionId: _b, ...freshRest } = fresh;
      expect(afterRest).toEqual(freshRest);
      expect(after.counts.requests).toBeGreaterThan(first.counts.requests);
      const both = async <T>(ask: (sessionId: string, hs: Handlers) => Promise<T>): Promise<[T, T]> => [
        await ask(first.sessionId, h),
        await ask(fresh.sessionId, whole.h),
      ];
      const [requests, wantRequests] = await both(async (id, hs) => value(await hs.listRequests({ sessionId: id })));
      expect(requests).toEqual(wantRequests);
      const [compactions, wantCompactions] = await both(async (id, hs) => value(await hs.listCompactions({ sessionId: id })));
      expect(compactions).toEqual(wantCompactions);
      const [diagnostics, wantDiagnostics] = await both(async (id, hs) => value(await hs.listDiagnostics({ sessionId: id })));
      expect(diagnostics).toEqual(wantDiagnostics);
      expect(diagnostics.withheld).toBeUndefined();
      const last = after.counts.requests - 1;
      for (const index of [0, Math.floor(last / 2), last]) {
        const got = value(await h.getViewWindow({ sessionId: first.sessionId, index, from: 0, count: 50 }));
        const want = value(await whole.h.getViewWindow({ sessionId: fresh.sessionId, index, from: 0, count: 50 }));
        expect(got, `request ${index}`).toEqual(want);
      }
      const reference = await loadSession(big);
      try {
        expectSameEvents(registry.get(first.sessionId).inspector.session, reference);
      } finally {
        await reference.dispose();
      }
    } finally {
      registry.dispose();
      whole.registry.dispose();
    }
  }, 120_000);

  it('stops reading the whole session when the session is closed first', async () => {
    const { registry, h, heard } = host(FIRST);
    try {
      const first = value(await h.openSession({ path: big }));
      expect(first.partial).toBeDefined();
      expect(value(await h.closeSession({ sessionId: first.sessionId })).closed).toBe(true);
      // The read behind the first view ends cancelled, never done, and leaves no open listed.
      await expect.poll(() => heard.at(-1)?.phase, { timeout: 60_000 }).toBe('cancelled');
      expect(heard.some((e) => e.phase === 'done')).toBe(false);
      expect(registry.opening()).toEqual([]);
      expect(registry.size).toBe(0);
    } finally {
      registry.dispose();
    }
  }, 120_000);

  it('opens a file under the cut whole, at once', async () => {
    const { registry, h } = host({ minBytes: statSync(big).size + 1, prefixBytes: FIRST.prefixBytes });
    try {
      const s = value(await h.openSession({ path: big }));
      expect(s.partial).toBeUndefined();
      expect(registry.opening()).toEqual([]);
    } finally {
      registry.dispose();
    }
  }, 120_000);
});
