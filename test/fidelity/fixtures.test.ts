import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLIENTS } from '../../src/main/fidelity/clients';
import { messageHash, rebuildApiRequests, requestBody } from './claude-requests';
import { anthropicRequest, canonicalJson } from '../../src/main/wire/normalize';
import { normalizeWire } from '../../src/main/fidelity/compare';
import { readScenarios } from '../../src/main/fidelity/scenario';
import { readCaptured } from '../../src/main/mock/record';
import { loadSession } from '../../src/main/session/load';

/*
 * The real logs of fixtures/fidelity/logs (written by every pinned version of Claude Code and
 * Codex, src/main/fidelity/clients.ts, against the mock provider, with the requests the mock captured beside them). These tests check
 * the fixtures themselves and what the suite established about the Claude Code records; how well
 * Palimpsest's importers rebuild the views is measured by `npm run test:fidelity` (docs/fidelity.md).
 */

const ROOT = 'fixtures/fidelity';
const scenarios = readScenarios(join(ROOT, 'scenarios'));

interface Saved {
  dir: string;
  run: { scenario: string; client: string; version: string; mainLog: string | null; logs: string[]; requests: number; problems: string[] };
}

const saved: Saved[] = readdirSync(join(ROOT, 'logs')).flatMap((v) =>
  readdirSync(join(ROOT, 'logs', v)).map((s) => {
    const dir = join(ROOT, 'logs', v, s);
    return { dir, run: JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as Saved['run'] };
  }),
);

const lines = (path: string): Record<string, unknown>[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('fidelity scenarios', () => {
  it('every scenario file is valid and names a known client', () => {
    expect(scenarios.length).toBeGreaterThanOrEqual(10);
    for (const s of scenarios) expect(Object.keys(CLIENTS)).toContain(s.client);
    // One file of a name for every version it runs on: a variant (`versions`) claims versions no
    // other file of the name claims, and at most one file of a name lists none.
    const claims = scenarios.flatMap((s) => (s.versions ?? ['*']).map((v) => `${s.client}/${s.name}@${v}`));
    expect(new Set(claims).size).toBe(claims.length);
  });

  it('every scenario has a saved run of the pinned client version, and a variant of each version it lists', () => {
    for (const s of scenarios)
      for (const version of s.versions ?? [CLIENTS[s.client].version]) {
        const dir = join(ROOT, 'logs', `${s.client}-${version}`, s.name);
        expect(existsSync(join(dir, 'run.json')), dir).toBe(true);
        // A variant's run is a run of the variant, not of the file it stands in for.
        if (s.versions)
          expect((JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { description: string }).description, dir).toBe(s.description);
      }
  });

  it('builds the client command lines the suite runs', () => {
    const dirs = { home: '/h', work: '/w', baseUrl: 'http://127.0.0.1:1234' };
    expect(CLIENTS['claude-code'].argv({ prompt: 'hi', resume: 'abc', args: [] }, dirs, [])).toEqual([
      '-p',
      'hi',
      '--output-format',
      'json',
      '--allowedTools',
      'Bash',
      '--resume',
      'abc',
    ]);
    expect(CLIENTS['claude-code'].env(dirs)).toMatchObject({
      HOME: '/h',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:1234',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    });
    const codex = CLIENTS.codex.argv({ prompt: 'hi', resume: 'abc', args: [] }, dirs, ['-m', 'm']);
    expect(codex.slice(0, 3)).toEqual(['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox']);
    expect(codex.slice(-3)).toEqual(['resume', 'abc', 'hi']);
    expect(codex.join(' ')).toContain('base_url="http://127.0.0.1:1234/v1"');
    expect(CLIENTS.codex.sessionId('', 'session id: 01a229b9-23d9-7d00-b175-5c297bef1c6f\n')).toBe('01a229b9-23d9-7d00-b175-5c297bef1c6f');
    expect(CLIENTS['claude-code'].sessionId('noise\n{"type":"result","session_id":"s-1"}\n', '')).toBe('s-1');
  });
});

describe.each(saved)('fixture $dir', ({ dir, run }) => {
  it('holds its log and a clean capture with no secret', async () => {
    expect(run.mainLog).not.toBeNull();
    for (const l of run.logs) expect(existsSync(join(dir, l)), l).toBe(true);
    const text = readFileSync(join(dir, 'captured.jsonl'), 'utf8');
    expect(text).not.toMatch(/dummy-key/);
    const { requests, errors } = readCaptured(join(dir, 'captured.jsonl'));
    expect(errors).toEqual([]);
    expect(requests).toHaveLength(run.requests);
    // Every model call carried a key, and it was left out. (Claude Code 2.1.97 and 2.1.197 also
    // send a bare `HEAD /` connectivity check, with no credentials.)
    for (const r of requests) if (r.method === 'POST') expect(r.redacted.length, `${r.method} ${r.path}`).toBeGreaterThan(0);
    for (const r of requests) if (r.method !== 'POST') expect([r.method, r.path]).toEqual(['HEAD', '/']);
    // Palimpsest opens the log (how exact its views are is docs/fidelity.md's business).
    const session = await loadSession(join(dir, run.mainLog as string));
    expect(session.events.length).toBeGreaterThan(0);
    await session.dispose();
  });
});

// The versions that write api-request records (2.1.332 of the matrix; the older ones have none).
const claude = saved.filter(
  (s) =>
    s.run.client === 'claude-code' && s.run.mainLog !== null && lines(join(s.dir, s.run.mainLog)).some((l) => l.type === 'api-request'),
);

it('the api-request records are checked on the current Claude Code version', () => {
  expect(claude.map((s) => s.run.version)).toContain(CLIENTS['claude-code'].version);
});

describe.each(claude)('Claude Code api-request records: $dir', ({ dir, run }) => {
  const log = lines(join(dir, run.mainLog as string));
  const { requests: captured } = readCaptured(join(dir, 'captured.jsonl'));

  it('every blob hash is sha256 of the canonical message (string content as one text block)', () => {
    const blobs = log.filter((l) => l.type === 'api-request-blob');
    expect(blobs.length).toBeGreaterThan(0);
    for (const b of blobs) expect(messageHash(b.message as Record<string, unknown>)).toBe(b.hash);
  });

  it('base/keep/tail rebuild every agent request exactly as it was sent; only summarizer calls are wire-only', () => {
    const rebuilt = rebuildApiRequests(log);
    expect(rebuilt.length).toBeGreaterThan(0);
    for (const r of rebuilt) expect(r.unresolved).toEqual([]);
    const key = (n: ReturnType<typeof anthropicRequest>) => canonicalJson({ system: n.system, parts: n.parts, tools: n.tools });
    // Token counts (/context asks for them) are no model calls.
    const wire = captured.filter((c) => c.answer.kind !== 'aux').map((c) => ({ c, key: key(normalizeWire(c)!) }));
    let from = 0;
    for (const r of rebuilt) {
      const k = key(anthropicRequest(requestBody(r)));
      const at = wire.findIndex((w, i) => i >= from && w.key === k);
      expect(at, `api-request ${r.id} (line ${r.line}) has no identical wire request`).toBeGreaterThanOrEqual(0);
      from = at + 1;
    }
    const logged = new Set(rebuilt.map((r) => key(anthropicRequest(requestBody(r)))));
    const wireOnly = wire.filter((w) => !logged.has(w.key)).map((w) => w.c.answer.label ?? '');
    for (const label of wireOnly) expect(label).toMatch(/^summarizer|^fallback$/);
  });
});
