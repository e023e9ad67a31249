import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createHandlers, type Handlers } from '../../../src/main/api/handlers';
import { SessionRegistry } from '../../../src/main/api/sessions';
import { closeSessionTokens } from '../../../src/main/api/session/tokens';
import { value } from './results';

/* Opening one session of an OpenCode database, as the library does with a listed session's id. */

const DB = 'fixtures/opencode/opencode.db';
const registries: SessionRegistry[] = [];
function handlers(): Handlers {
  const registry = new SessionRegistry({ allow: 'any', captureDiscovery: null });
  registries.push(registry);
  return createHandlers({ registry, initialPaths: [] });
}
const copies = (): string[] => readdirSync(tmpdir()).filter((n) => n.startsWith('palimpsest-opencode-'));
const before = new Set(copies());
afterEach(async () => {
  for (const r of registries.splice(0)) r.dispose();
  // Closing lets go of each session's private copy, after its files are closed: wait for that.
  for (let i = 0; i < 100 && copies().some((n) => !before.has(n)); i++) await new Promise((r) => setTimeout(r, 20));
  expect(copies().filter((n) => !before.has(n))).toEqual([]);
});
afterAll(async () => {
  await closeSessionTokens();
});

describe('openSession with a session of a database', () => {
  it('opens each session of the same database apart, and says which there are without one', async () => {
    const h = handlers();
    const basic = value(await h.openSession({ path: DB, session: 'ses_basic' }));
    const compact = value(await h.openSession({ path: DB, session: 'ses_compact' }));
    expect(basic.sessionId).not.toBe(compact.sessionId);
    expect([basic.format, basic.counts.requests, compact.counts.requests]).toEqual(['opencode', 4, 5]);
    const none = await h.openSession({ path: DB });
    expect(none.ok).toBe(false);
    expect(none.ok ? '' : none.error.message).toMatch(/holds 2 OpenCode sessions: pass --session ID/);
  });
});
