import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createHandlers, type Handlers } from '../../../src/main/api/handlers';
import { SessionRegistry } from '../../../src/main/api/sessions';
import { closeSessionTokens } from '../../../src/main/api/session/tokens';
import * as load from '../../../src/main/session/load';
import { value } from './results';
import { shownOf as shown } from '../session/same-session';

/*
 * The app's Follow in the host (src/main/api/session/follow.ts): real sessions are appended to a
 * copy in pieces, each piece awaited with awaitSessionChange, and the registry's session — under
 * the id it was opened with — is then compared with a fresh open of the same bytes: every event
 * and where it came from, every finding, and the model view and fates of every request. Loads
 * are counted: after the first change (which loads the session again so that it can read on),
 * the appends are read on, not loaded.
 */

vi.mock('../../../src/main/session/load', async (original) => {
  const actual = await original<typeof import('../../../src/main/session/load')>();
  return { ...actual, loadSession: vi.fn(actual.loadSession) };
});
const loads = (): number => vi.mocked(load.loadSession).mock.calls.length;

// Claude Code, with its first compaction (line 754) among the lines appended.
const CC = 'fixtures/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl';
const CODEX = 'fixtures/codex/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl';
const linesOf = (path: string): string[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '');

let registry: SessionRegistry;
let h: Handlers;
let dir: string;

beforeAll(() => {
  registry = new SessionRegistry({ allow: 'any', captureDiscovery: null });
  h = createHandlers({ registry, initialPaths: [] });
});
afterAll(async () => {
  registry.dispose();
  await closeSessionTokens();
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'palimpsest-follow-api-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** What a fresh open of `file` shows (opened and closed again in the same registry). */
async function fresh(file: string): Promise<unknown> {
  const { sessionId } = value(await h.openSession({ path: file }));
  const out = shown(registry.get(sessionId).inspector);
  value(await h.closeSession({ sessionId }));
  return out;
}

/** Opens the first `start` lines of `lines` in a copy, then appends the rest in `pieces` pieces, each awaited. */
async function follow(lines: readonly string[], start: number, pieces: number): Promise<{ file: string; sessionId: string }> {
  const file = join(dir, 'session.jsonl');
  writeFileSync(file, lines.slice(0, start).join('\n') + '\n');
  const opened = value(await h.openSession({ path: file }));
  const { sessionId } = opened;
  const before = loads();
  let revision = 0;
  const step = Math.ceil((lines.length - start) / pieces);
  for (let at = start; at < lines.length; at += step) {
    appendFileSync(file, lines.slice(at, at + step).join('\n') + '\n');
    const r = value(await h.awaitSessionChange({ sessionId, since: revision, waitMs: 20_000 }));
    expect(r.changed).toBe(true);
    expect(r.revision).toBeGreaterThan(revision);
    expect(r.reloaded).toBeNull();
    expect(r.summary?.sessionId).toBe(sessionId);
    expect(r.summary?.counts.requests).toBe(registry.get(sessionId).inspector.replay().requests.length);
    revision = r.revision;
  }
  // The first change loaded the session again (keeping its import open); every later one read on.
  expect(loads() - before).toBe(1);
  expect(registry.get(sessionId).inspector.session.readOn).toBeTypeOf('function');
  return { file, sessionId };
}

describe('Follow in the host', () => {
  it('reads a Claude Code session on across a compaction, ending as a fresh open does', async () => {
    const lines = linesOf(CC).slice(0, 800);
    const { file, sessionId } = await follow(lines, 700, 5);
    const followed = registry.get(sessionId).inspector;
    expect(followed.replay().compactions.length).toBeGreaterThan(0);
    expect(shown(followed)).toEqual(await fresh(file));
    value(await h.closeSession({ sessionId }));
  });

  it('reads a Codex session on, ending as a fresh open does', async () => {
    const lines = linesOf(CODEX);
    const { file, sessionId } = await follow(lines, 10, 6);
    expect(shown(registry.get(sessionId).inspector)).toEqual(await fresh(file));
    value(await h.closeSession({ sessionId }));
  });

  it('loads a session rewritten in place or truncated again, and says so', async () => {
    const lines = linesOf(CODEX);
    const { file, sessionId } = await follow(lines.slice(0, 30), 10, 2);
    const revision = registry.get(sessionId).revision;
    // The same lines from another start: longer than before, but not what was read.
    writeFileSync(file, lines.slice(1).join('\n') + '\n');
    const r = value(await h.awaitSessionChange({ sessionId, since: revision, waitMs: 20_000 }));
    expect(r.changed).toBe(true);
    expect(r.reloaded).toMatch(/rewritten in place/);
    expect(shown(registry.get(sessionId).inspector)).toEqual(await fresh(file));
    writeFileSync(file, lines.slice(0, 12).join('\n') + '\n');
    const t = value(await h.awaitSessionChange({ sessionId, since: r.revision, waitMs: 20_000 }));
    expect(t.reloaded).toMatch(/truncated/);
    expect(t.summary?.counts.requests).toBeLessThan(r.summary?.counts.requests ?? 0);
    expect(shown(registry.get(sessionId).inspector)).toEqual(await fresh(file));
    value(await h.closeSession({ sessionId }));
  });

  it('says a session rewritten in place as its first change was loaded again', async () => {
    const lines = linesOf(CODEX);
    const file = join(dir, 'session.jsonl');
    writeFileSync(file, lines.slice(0, 30).join('\n') + '\n');
    const { sessionId } = value(await h.openSession({ path: file }));
    // The app waits on a session as soon as it shows it: nothing has changed yet.
    expect(value(await h.awaitSessionChange({ sessionId, since: 0, waitMs: 50 })).changed).toBe(false);
    writeFileSync(file, lines.slice(1).join('\n') + '\n');
    const r = value(await h.awaitSessionChange({ sessionId, since: 0, waitMs: 20_000 }));
    expect(r.changed).toBe(true);
    expect(r.reloaded).toMatch(/rewritten in place/);
    expect(shown(registry.get(sessionId).inspector)).toEqual(await fresh(file));
    value(await h.closeSession({ sessionId }));
  });

  it('reads each change once however many calls wait, and answers views throughout', async () => {
    const lines = linesOf(CODEX);
    const file = join(dir, 'session.jsonl');
    writeFileSync(file, lines.slice(0, 10).join('\n') + '\n');
    const { sessionId } = value(await h.openSession({ path: file }));
    const waiters = [0, 1, 2].map(() => h.awaitSessionChange({ sessionId, since: 0, waitMs: 20_000 }));
    // Views asked while changes are read: each answers from one whole session.
    let asking = true;
    const asked = (async () => {
      let n = 0;
      while (asking) {
        const s = registry.get(sessionId);
        const last = s.inspector.replay().requests.length - 1;
        if (last >= 0) {
          const head = value(await h.getViewHead({ sessionId, index: last }));
          expect(head.request.index).toBe(last);
          const text = value(await h.getEventText({ sessionId, seq: 0 }));
          expect(text.line).toBe(1);
        }
        n++;
        await new Promise((ok) => setTimeout(ok, 5));
      }
      return n;
    })();
    for (let at = 10; at < lines.length; at += 8) {
      appendFileSync(file, lines.slice(at, at + 8).join('\n') + '\n');
      await new Promise((ok) => setTimeout(ok, 30));
    }
    const first = await Promise.all(waiters);
    for (const r of first) expect(value(r).changed).toBe(true);
    // Then until the session has read everything written.
    let revision = Math.max(...first.map((r) => value(r).revision));
    const size = readFileSync(file).length;
    while (registry.get(sessionId).inspector.session.files[0]?.bytes !== size) {
      revision = value(await h.awaitSessionChange({ sessionId, since: revision, waitMs: 5000 })).revision;
    }
    asking = false;
    expect(await asked).toBeGreaterThan(0);
    expect(shown(registry.get(sessionId).inspector)).toEqual(await fresh(file));
    value(await h.closeSession({ sessionId }));
  });

  it('answers unchanged in time, and at once for a caller behind', async () => {
    const file = join(dir, 'session.jsonl');
    writeFileSync(file, linesOf(CODEX).slice(0, 20).join('\n') + '\n');
    const { sessionId } = value(await h.openSession({ path: file }));
    expect(value(await h.awaitSessionChange({ sessionId, waitMs: 50 }))).toMatchObject({ changed: false, revision: 0, summary: null });
    appendFileSync(file, linesOf(CODEX).slice(20, 30).join('\n') + '\n');
    const r = value(await h.awaitSessionChange({ sessionId, since: 0, waitMs: 20_000 }));
    expect(r.revision).toBe(1);
    // Another caller still at revision 0 hears of it without waiting.
    const behind = value(await h.awaitSessionChange({ sessionId, since: 0, waitMs: 0 }));
    expect(behind).toMatchObject({ changed: true, revision: 1, reloaded: null });
    value(await h.closeSession({ sessionId }));
  });
});

describe('the registry while Follow swaps a session', () => {
  it('keeps the session a call began with open until the call is done', async () => {
    const file = join(dir, 'session.jsonl');
    writeFileSync(file, linesOf(CODEX).slice(0, 20).join('\n') + '\n');
    const { sessionId } = value(await h.openSession({ path: file }));
    const old = registry.get(sessionId).inspector;
    const disposed = vi.spyOn(old.session, 'dispose');
    const release = registry.hold(sessionId);
    const next = await registry.reload(sessionId);
    const now = registry.replace(sessionId, next);
    expect(now).toMatchObject({ id: sessionId, revision: 1 });
    expect(registry.get(sessionId).inspector).toBe(next);
    expect(disposed).not.toHaveBeenCalled();
    release();
    expect(disposed).toHaveBeenCalledOnce();
    value(await h.closeSession({ sessionId }));
  });
});
