import { appendFileSync, copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandlers, type Handlers } from '../../../src/main/api/handlers';
import { SessionRegistry } from '../../../src/main/api/sessions';
import { closeSessionTokens } from '../../../src/main/api/session/tokens';
import { value } from './results';

let registry: SessionRegistry;
let h: Handlers;
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'palimpsest-await-api-'));
  registry = new SessionRegistry({ allow: 'any', captureDiscovery: null });
  h = createHandlers({ registry, initialPaths: [] });
});
afterAll(async () => {
  registry.dispose();
  await closeSessionTokens();
  rmSync(dir, { recursive: true, force: true });
});

describe('awaitSessionChange', () => {
  it('holds the request until the session file grows, then says so; else answers false in time', async () => {
    const file = join(dir, 'basic.jsonl');
    copyFileSync('fixtures/palimpsest/basic.jsonl', file);
    const { sessionId } = value(await h.openSession({ path: file }));
    expect(value(await h.awaitSessionChange({ sessionId, waitMs: 50 })).changed).toBe(false);
    const waiting = h.awaitSessionChange({ sessionId, waitMs: 10_000 });
    appendFileSync(file, '{"kind":"unknown","seq":999}\n');
    expect(value(await waiting).changed).toBe(true);
  });

  it('refuses a session that is not open', async () => {
    const r = await h.awaitSessionChange({ sessionId: 'nope', waitMs: 10 });
    expect(r.ok).toBe(false);
  });
});
