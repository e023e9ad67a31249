import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ensureClaudeBig } from '../../../bench/claude';
import { createHandlers, type Handlers } from '../../../src/main/api/handlers';
import type { FirstViewOptions } from '../../../src/main/api/first-view';
import { SessionRegistry } from '../../../src/main/api/sessions';
import { closeSessionTokens } from '../../../src/main/api/session/tokens';
import { shownOf } from '../session/same-session';
import { value } from './results';

/*
 * Follow on a session opened with a first view (src/main/api/session/follow.ts): nothing is read
 * into the first view; a held awaitSessionChange answers when the whole session has taken its
 * place, as the next revision, read on and with every finding of the whole added; the session's
 * changes are read into the whole from then on, and it then shows what a fresh open of the same
 * bytes shows. The cut is lowered so that a real Claude Code session twice over opens partial.
 */

const dir = mkdtempSync(join(tmpdir(), 'palimpsest-first-view-follow-'));
let lines: string[];
const FIRST = { minBytes: 1_000_000, prefixBytes: 1_000_000 };

beforeAll(() => {
  lines = readFileSync(ensureClaudeBig(dir, 5_000_000), 'utf8')
    .split('\n')
    .filter((l) => l !== '');
});
afterAll(async () => {
  await closeSessionTokens();
  rmSync(dir, { recursive: true, force: true });
});

function host(firstView: FirstViewOptions | null): { registry: SessionRegistry; h: Handlers } {
  const registry = new SessionRegistry({ allow: 'any', captureDiscovery: null, firstView });
  return { registry, h: createHandlers({ registry, initialPaths: [] }) };
}

describe('Follow on a session opened with a first view', () => {
  it('waits for the whole session, answers it as the next revision, then reads the changes into it', async () => {
    const { registry, h } = host(FIRST);
    const whole = host(null);
    const reload = vi.spyOn(registry, 'reload');
    try {
      const file = join(dir, 'followed.jsonl');
      const held = lines.length - 300;
      writeFileSync(file, lines.slice(0, held).join('\n') + '\n');
      const opened = value(await h.openSession({ path: file }));
      const { sessionId } = opened;
      expect(opened.partial).toBeDefined();

      // The whole session comes in as revision 1: read on (nothing reloaded), its findings all new.
      const first = value(await h.awaitSessionChange({ sessionId, since: 0, waitMs: 60_000 }));
      expect(first.changed).toBe(true);
      expect(first.revision).toBe(1);
      expect(first.reloaded).toBeNull();
      expect(first.summary?.partial).toBeUndefined();
      expect(first.summary?.sessionId).toBe(sessionId);
      const findings = value(await h.listDiagnostics({ sessionId }));
      expect(findings.withheld).toBeUndefined();
      expect(findings.diagnostics.length).toBeGreaterThan(0);
      expect(first.findings).toEqual({ added: findings.diagnostics.length, withdrawn: 0 });
      // Nothing was read into the first view: the only session put in its place is the whole.
      expect(reload).not.toHaveBeenCalled();
      const fresh = value(await whole.h.openSession({ path: file }));
      const { sessionId: _a, ...got } = first.summary ?? {};
      const { sessionId: _b, ...want } = fresh;
      expect(got).toEqual(want);
      value(await whole.h.closeSession({ sessionId: fresh.sessionId }));

      // A caller that saw the first view and missed that answer is told the same at once.
      const again = value(await h.awaitSessionChange({ sessionId, since: 0, waitMs: 0 }));
      expect(again).toEqual(first);

      // Then the session is followed: lines appended are read into the whole.
      appendFileSync(file, lines.slice(held).join('\n') + '\n');
      const next = value(await h.awaitSessionChange({ sessionId, since: 1, waitMs: 60_000 }));
      expect(next.changed).toBe(true);
      expect(next.revision).toBe(2);
      expect(next.reloaded).toBeNull();
      expect(reload).toHaveBeenCalledTimes(1);
      expect(next.summary?.counts.requests).toBeGreaterThan(first.summary?.counts.requests ?? Infinity);
      const now = value(await whole.h.openSession({ path: file }));
      try {
        expect(shownOf(registry.get(sessionId).inspector)).toEqual(shownOf(whole.registry.get(now.sessionId).inspector));
      } finally {
        value(await whole.h.closeSession({ sessionId: now.sessionId }));
      }
    } finally {
      registry.dispose();
      whole.registry.dispose();
    }
  }, 180_000);

  it('answers no change while the whole is still read, the first view left as it is', async () => {
    // The whole is held back: the first view stays for as long as the test looks.
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const { registry, h } = host({ ...FIRST, holdWhole: () => held });
    try {
      const file = join(dir, 'held.jsonl');
      writeFileSync(file, lines.join('\n') + '\n');
      const { sessionId, partial } = value(await h.openSession({ path: file }));
      expect(partial).toBeDefined();
      const inspector = registry.get(sessionId).inspector;
      const t0 = performance.now();
      const r = value(await h.awaitSessionChange({ sessionId, since: 0, waitMs: 300 }));
      // The call waited its time for the whole, and answered no change.
      expect(performance.now() - t0).toBeGreaterThanOrEqual(250);
      expect(r).toEqual({ changed: false, revision: 0, reloaded: null, summary: null, findings: { added: 0, withdrawn: 0 } });
      expect(registry.get(sessionId).inspector).toBe(inspector);
      expect(registry.get(sessionId).partial).toBeDefined();
      // Released, the whole comes in and answers a call already waiting.
      const waiting = h.awaitSessionChange({ sessionId, since: 0, waitMs: 60_000 });
      release();
      const next = value(await waiting);
      expect(next.revision).toBe(1);
      expect(registry.get(sessionId).partial).toBeUndefined();
      expect(registry.get(sessionId).wholeAt).toBe(1);
    } finally {
      registry.dispose();
    }
  }, 120_000);
});
