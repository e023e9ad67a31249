import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createHandlers, type Handlers } from '../../../src/main/api/handlers';
import { SessionRegistry, type SessionRegistryOptions } from '../../../src/main/api/sessions';
import { closeSessionTokens } from '../../../src/main/api/session/tokens';
import { value } from './results';

/* Opening a session with its capture: named or found beside it, and the joined list it gives. */

const RUN = 'fixtures/fidelity/logs/claude-code-2.1.332/compact-http-500';
const SESSION = `${RUN}/projects/-tmp-palimpsest-fidelity-run-claude-code-compact-http-500-work/d7672e9b-78eb-4ae0-bede-e6cfd3bf86dc.jsonl`;
const CAPTURE = 'fixtures/captures/fidelity/claude-code-2.1.332.compact-http-500.capture.jsonl';
const OVERLOADED_RUN = 'fixtures/fidelity/logs/claude-code-2.1.332/compact-overloaded';
const OVERLOADED_CAPTURE = 'fixtures/captures/fidelity/claude-code-2.1.332.compact-overloaded.capture.jsonl';

const registries: SessionRegistry[] = [];
const dirs: string[] = [];
function handlers(opts: Partial<SessionRegistryOptions> = {}): Handlers {
  const registry = new SessionRegistry({ allow: 'any', captureDiscovery: null, ...opts });
  registries.push(registry);
  return createHandlers({ registry, initialPaths: [] });
}
afterEach(() => {
  for (const r of registries.splice(0)) r.dispose();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
afterAll(async () => {
  await closeSessionTokens();
});

async function sessionOf(run: string): Promise<string> {
  const { readdirSync } = await import('node:fs');
  const projects = join(run, 'projects');
  const [folder] = readdirSync(projects);
  const file = readdirSync(join(projects, folder ?? '')).find((f) => f.endsWith('.jsonl'));
  return join(projects, folder ?? '', file ?? '');
}

describe('a session opened with its capture', () => {
  it("joins a named capture: the summary lists it, request counts and indexes stay the log's", async () => {
    const h = handlers();
    const plain = value(await h.openSession({ path: SESSION }));
    const joined = value(await h.openSession({ path: SESSION, captures: [CAPTURE] }));
    expect(plain.captures).toEqual([]);
    expect(joined.captures).toEqual([
      { path: expect.stringMatching(/compact-http-500\.capture\.jsonl$/), format: 'palimpsest', exchanges: 6, taken: 6, skipped: 0 },
    ]);
    expect(joined.counts.requests).toBe(plain.counts.requests);
    // Existing methods answer exactly as without a capture.
    const a = value(await h.listRequests({ sessionId: plain.sessionId }));
    const b = value(await h.listRequests({ sessionId: joined.sessionId }));
    expect(b).toEqual(a);
    expect(value(await h.listTimeline({ sessionId: plain.sessionId }))).toMatchObject({ joined: false, requests: [] });
  });

  it('lists the joined timeline: wire-only attempts with their status, under the compaction', async () => {
    const h = handlers();
    const id = value(await h.openSession({ path: SESSION, captures: [CAPTURE] })).sessionId;
    const t = value(await h.listTimeline({ sessionId: id }));
    expect(t.joined).toBe(true);
    expect(t.requests.map((r) => `${r.source} ${r.purpose} ${r.status} ${r.logIndex ?? '-'}`)).toEqual([
      'both agent 200 0',
      'both agent 200 1',
      'wire summarizer 500 -',
      'wire summarizer 500 -',
      'wire summarizer 200 -',
      'both agent 200 2',
    ]);
    expect(t.requests[2]?.error?.message).toMatch(/500/);
    expect(t.requests[3]?.retryOf).toBe(2);
    expect(t.requests[0]?.verdict).toBe('match');
    expect(t.requests[2]?.capture).toMatchObject({ path: expect.stringMatching(/\.capture\.jsonl$/), exchange: 2 });
    const compactions = value(await h.listCompactions({ sessionId: id })).compactions;
    expect(t.compactions).toEqual([{ id: compactions[0]?.id, attempts: [2, 3, 4] }]);
    expect(t.orphanAttempts).toEqual([]);
  });

  it('gives a wire-only attempt its exact view and the summary the model wrote', async () => {
    const h = handlers();
    const id = value(await h.openSession({ path: SESSION, captures: [CAPTURE] })).sessionId;
    const failed = value(await h.getWireRequest({ sessionId: id, index: 2 }));
    expect(failed.http).toMatchObject({ method: 'POST', status: 500 });
    expect(failed.output).toBeNull();
    expect(failed.view?.request.index).toBe(2);
    // The summarizer got the conversation and the harness's request for a summary.
    const last = failed.view?.items.at(-1);
    expect(JSON.stringify(last?.blocks)).toMatch(/summary/i);
    const ok = value(await h.getWireRequest({ sessionId: id, index: 4 }));
    expect(ok.http?.status).toBe(200);
    expect(ok.output?.text.length).toBeGreaterThan(0);
    // The wire carried back the summary the log's checkpoint holds (Claude Code rewraps it).
    expect(ok.output?.text).toContain('<summary>1. Primary Request: print a greeting.');
    const c = value(await h.listCompactions({ sessionId: id })).compactions[0];
    const detail = value(await h.getCompaction({ sessionId: id, compactionId: c?.id ?? '' }));
    const logged = detail.summaries.at(-1)?.text.text ?? detail.checkpoints.at(-1)?.text.text ?? '';
    expect(logged).toContain('1. Primary Request: print a greeting.');
    // A request both know: its log index is kept beside the joined one.
    const both = value(await h.getWireRequest({ sessionId: id, index: 5 }));
    expect(both.request).toMatchObject({ source: 'both', logIndex: 2 });
    expect(both.view?.fates.length).toBeGreaterThan(0);
    expect((await h.getWireRequest({ sessionId: id, index: 6 })).ok).toBe(false);
  });

  it('shows attempts no logged compaction stands for as an orphan run', async () => {
    const h = handlers();
    const id = value(await h.openSession({ path: await sessionOf(OVERLOADED_RUN), captures: [OVERLOADED_CAPTURE] })).sessionId;
    const t = value(await h.listTimeline({ sessionId: id }));
    expect(t.compactions).toEqual([]);
    expect(t.orphanAttempts).toEqual([[2, 3, 4]]);
    expect(t.requests.slice(2, 5).map((r) => r.status)).toEqual([529, 529, 529]);
  });

  it('finds the capture beside the session, or in the data dir, when none is named', async () => {
    const d = mkdtempSync(join(tmpdir(), 'palimpsest-capture-open-'));
    dirs.push(d);
    const session = join(d, 'session.jsonl');
    copyFileSync(SESSION, session);
    copyFileSync(CAPTURE, join(d, 'run.capture.jsonl'));
    const h = handlers({ captureDiscovery: { dataDir: null } });
    const s = value(await h.openSession({ path: session }));
    expect(s.captures?.map((c) => c.path)).toEqual([join(d, 'run.capture.jsonl')]);
    expect(value(await h.listTimeline({ sessionId: s.sessionId })).requests).toHaveLength(6);
    // Discovery off: nothing joined.
    const off = handlers();
    expect(value(await off.openSession({ path: session })).captures).toEqual([]);
  });

  it('refuses a capture the host may not read, and one that is no capture', async () => {
    const h = handlers({ allow: [SESSION] });
    const r = await h.openSession({ path: SESSION, captures: [CAPTURE] });
    expect(r.ok ? null : r.error.code).toBe('FORBIDDEN_PATH');
    const any = handlers();
    const bad = await any.openSession({ path: SESSION, captures: ['fixtures/captures/not-a-capture.txt'] });
    expect(bad.ok ? null : bad.error).toMatchObject({ code: 'UNREADABLE', message: expect.stringMatching(/not a capture/) });
    const missing = await any.openSession({ path: SESSION, captures: ['fixtures/captures/none.capture.jsonl'] });
    expect(missing.ok ? null : missing.error.code).toBe('UNREADABLE');
  });
});
