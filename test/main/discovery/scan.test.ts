import { mkdtemp, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ClaudeScanner } from '../../../src/main/discovery/scan-claude';
import { scanSession } from '../../../src/main/discovery/scan';
import type { Harness, ScanResult, SessionCandidate } from '../../../src/main/discovery/types';
import { SessionInspector } from '../../../src/main/session/inspector';
import { loadSession } from '../../../src/main/session/load';

/*
 * The fast scan against the full importers: the requests and compactions `palimpsest ls` shows
 * must be the ones `palimpsest inspect` counts on the session's default branch.
 */

async function candidate(harness: Harness, path: string): Promise<SessionCandidate> {
  const s = await stat(path);
  return { harness, path, files: s.isFile() ? [{ path, size: s.size, mtimeMs: s.mtimeMs }] : [] };
}

async function full(path: string): Promise<{ requests: number; compactions: number }> {
  const session = await loadSession(path);
  try {
    const state = new SessionInspector(session).replay();
    return { requests: state.requests.length, compactions: state.compactions.length };
  } finally {
    await session.dispose();
  }
}

async function filesUnder(dir: string, test: (name: string) => boolean): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await filesUnder(p, test)));
    else if (test(e.name)) out.push(p);
  }
  return out.sort();
}

async function fixtureSessions(): Promise<[Harness, string][]> {
  const out: [Harness, string][] = [];
  for (const f of await readdir('fixtures/claude-code'))
    if (f.endsWith('.jsonl')) out.push(['claude-code', join('fixtures/claude-code', f)]);
  for (const f of await readdir('fixtures/codex')) if (f.startsWith('rollout-')) out.push(['codex', join('fixtures/codex', f)]);
  for (const f of await readdir('fixtures/cosh')) if (f.startsWith('session-')) out.push(['cosh', join('fixtures/cosh', f)]);
  for (const f of await readdir('fixtures/rind'))
    if ((await stat(join('fixtures/rind', f))).isDirectory()) out.push(['rind', join('fixtures/rind', f)]);
  for (const f of await readdir('fixtures/palimpsest')) if (f.endsWith('.jsonl')) out.push(['palimpsest', join('fixtures/palimpsest', f)]);
  for (const f of await filesUnder('fixtures/dsh', (n) => n.endsWith('.jsonl'))) out.push(['dsh', f]);
  out.push(['dsh', 'fixtures/dsh-zstd/session.jsonl.zstd']);
  for (const f of await filesUnder('fixtures/gemini-cli', (n) => n.startsWith('session-'))) out.push(['gemini-cli', f]);
  return out;
}

describe('fast scan = full importer, on every fixture session', async () => {
  const sessions = await fixtureSessions();
  it('has sessions of every harness to compare', () => {
    expect(new Set(sessions.map(([h]) => h))).toEqual(new Set(['claude-code', 'codex', 'cosh', 'rind', 'palimpsest', 'dsh', 'gemini-cli']));
  });
  for (const [harness, path] of sessions) {
    it(`${harness} ${path}`, async () => {
      const fast = scanSession(await candidate(harness, path));
      expect(fast.problems).toEqual([]);
      expect({ requests: fast.requests, compactions: fast.compactions }).toEqual(await full(path));
    });
  }
});

describe('Claude Code fast scan', () => {
  const BIG = 'fixtures/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl';
  let tmp = '';
  let lines: string[] = [];
  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'palimpsest-scan-'));
    lines = (await readFile(BIG, 'utf8')).split('\n').filter((l) => l.length > 0);
  });

  async function scanText(name: string, text: string): Promise<ScanResult> {
    const p = join(tmp, name);
    await writeFile(p, text);
    return scanSession(await candidate('claude-code', p));
  }

  it('reads session id, project, times, version and model of the real sample', async () => {
    const r = scanSession(await candidate('claude-code', BIG));
    expect(r).toMatchObject({
      id: '4d5611e5-241a-462a-8d15-5122611a9569',
      project: '/home/USER/projects/spotter-worktrees/spotter-dov',
      harnessVersion: '2.1.39',
      model: 'claude-opus-4-6',
      startedAt: '2026-02-12T16:02:23.545Z',
      endedAt: '2026-02-12T21:03:34.206Z',
      requests: 139,
      compactions: 1,
      badLines: 0,
    });
  });

  it('gives the same counts whatever the key order, spacing, line ends or a BOM', async () => {
    const shuffled = lines.map((l, i) => {
      const v = JSON.parse(l) as Record<string, unknown>;
      const keys = Object.keys(v);
      // A different rotation per line, so that nested values come first, last and between.
      const k = i % Math.max(1, keys.length);
      const o: Record<string, unknown> = {};
      for (const key of [...keys.slice(k), ...keys.slice(0, k)]) o[key] = v[key];
      return JSON.stringify(o);
    });
    const spaced = lines.map((l) => JSON.stringify(JSON.parse(l), null, 1).replace(/\n/g, ' '));
    const want = { requests: 139, compactions: 1, badLines: 0 };
    expect(await scanText('shuffled.jsonl', shuffled.join('\n'))).toMatchObject(want);
    expect(await scanText('spaced.jsonl', spaced.join('\n'))).toMatchObject(want);
    expect(await scanText('crlf.jsonl', `\uFEFF${lines.join('\r\n')}\r\n`)).toMatchObject(want);
  });

  it('refuses two Claude Code scans interleaved on one thread (they share its id tables)', () => {
    const a = new ClaudeScanner();
    new ClaudeScanner();
    const line = Buffer.from(lines[1] as string);
    expect(() => a.line(line, 0, line.length)).toThrow(/another Claude Code scan started/);
  });

  it('counts a malformed line and goes on', async () => {
    const bad = [...lines.slice(0, 10), '{"type": "assistant", "message": {', 'not json', ...lines.slice(10)];
    expect(await scanText('bad.jsonl', bad.join('\n'))).toMatchObject({ requests: 139, compactions: 1, badLines: 2 });
  });

  // Small sessions of each shape the importer resolves, checked against it.
  const env = (o: Record<string, unknown>): string =>
    JSON.stringify({
      parentUuid: null,
      isSidechain: false,
      userType: 'external',
      cwd: '/w',
      sessionId: 's',
      version: '2.1.39',
      gitBranch: 'main',
      ...o,
      timestamp: '2026-01-01T00:00:00.000Z',
    });
  const user = (uuid: string, parent: string | null, text = 'hi', extra: Record<string, unknown> = {}): string =>
    env({ parentUuid: parent, type: 'user', message: { role: 'user', content: text }, uuid, ...extra });
  const asst = (uuid: string, parent: string | null, id: string, extra: Record<string, unknown> = {}, model = 'claude-opus-4-6'): string =>
    env({
      parentUuid: parent,
      message: {
        model,
        id,
        type: 'message',
        role: 'assistant',
        content: [{ type: 'text', text: 'ok' }],
        usage: { input_tokens: 1, output_tokens: 1 },
      },
      requestId: `req_${id}`,
      type: 'assistant',
      uuid,
      ...extra,
    });
  const progress = (uuid: string, parent: string): string =>
    env({
      parentUuid: parent,
      type: 'progress',
      data: { type: 'hook_progress', hookEvent: 'PostToolUse' },
      toolUseID: 't',
      parentToolUseID: 't',
      uuid,
    });
  const cases: Record<string, string[]> = {
    'a rewind: the newest branch is the default': [
      user('u1', null),
      asst('a1', 'u1', 'm1'),
      user('u2', 'a1'),
      asst('a2', 'u2', 'm2'),
      user('u3', 'a1', 'again'),
      asst('a3', 'u3', 'm3'),
    ],
    'one response split over lines, parallel tool results': [
      user('u1', null),
      asst('a1', 'u1', 'm1'),
      asst('a1b', 'a1', 'm1'),
      user('r1', 'a1', 'r'),
      user('r2', 'a1b', 'r'),
      asst('a2', 'r2', 'm2'),
    ],
    'a parent that is a progress record': [
      user('u1', null),
      asst('a1', 'u1', 'm1'),
      progress('p1', 'a1'),
      progress('p2', 'p1'),
      user('u2', 'p2'),
      asst('a2', 'u2', 'm2'),
    ],
    'missing parents, a duplicate uuid, a synthetic and an API error message': [
      user('u1', null),
      asst('a1', 'u1', 'm1'),
      user('u2', 'nowhere'),
      asst('a2', 'u2', 'm2'),
      asst('a2', 'u2', 'm9'),
      asst('a3', 'a2', 'syn', {}, '<synthetic>'),
      asst('a4', 'a3', 'err', { isApiErrorMessage: true }, '<synthetic>'),
    ],
    'a sidechain in the main file and a later new root': [
      user('u1', null),
      asst('a1', 'u1', 'm1'),
      user('s1', 'a1', 'side', { isSidechain: true }),
      asst('s2', 's1', 'ms', { isSidechain: true }),
      user('u2', 'a1'),
      asst('a2', 'u2', 'm2'),
      user('n1', null, 'new'),
      asst('n2', 'n1', 'mn'),
    ],
    // An array-valued key before `type` / `message`: the fast path reads such lines too (it needs
    // no key between isSidechain and the first nested value), and must count them the same.
    'array values before the type and the message': [
      env({ parentUuid: null, tags: ['a', 'b'], type: 'user', message: { role: 'user', content: 'hi' }, uuid: 'u1' }),
      env({
        parentUuid: 'u1',
        tags: [],
        message: { model: 'claude-opus-4-6', id: 'm1', type: 'message', role: 'assistant', content: [] },
        type: 'assistant',
        uuid: 'a1',
      }),
      env({
        parentUuid: 'a1',
        labels: [['x'], 'y'],
        type: 'progress',
        data: { type: 'hook_progress' },
        toolUseID: 't',
        parentToolUseID: 't',
        uuid: 'p1',
      }),
      env({ parentUuid: 'p1', tags: ['{'], type: 'user', message: { role: 'user', content: 'again' }, uuid: 'u2' }),
      env({
        parentUuid: 'u2',
        tags: ['"type":"user","message":{'],
        message: { model: 'claude-opus-4-6', id: 'm2', type: 'message', role: 'assistant', content: [] },
        type: 'assistant',
        uuid: 'a2',
      }),
      env({
        parentUuid: 'a2',
        tags: [[]],
        message: { model: 'claude-opus-4-6', id: 'm3', type: 'message', role: 'assistant', content: [] },
        type: 'assistant',
        uuid: 'a3',
      }),
    ],
    'a compaction with its summary, after a rewind': [
      user('u1', null),
      asst('a1', 'u1', 'm1'),
      user('u2', 'a1'),
      asst('a2', 'u2', 'm2'),
      user('u3', 'a1', 'again'),
      asst('a3', 'u3', 'm3'),
      env({
        type: 'system',
        subtype: 'compact_boundary',
        content: 'Conversation compacted',
        logicalParentUuid: 'a2',
        compactMetadata: { trigger: 'manual', preTokens: 10 },
        uuid: 'cb',
      }),
      user('cs', 'cb', 'This session is being continued…', { isCompactSummary: true }),
      asst('a4', 'cs', 'm4'),
    ],
  };
  // The same records with uuid-shaped ids, as Claude Code writes them (the fast path for progress
  // records only takes those).
  const uuidOf = (id: string): string =>
    `${Buffer.from(id).toString('hex').padEnd(8, '0').slice(0, 8)}-0000-4000-8000-${id.length.toString(16).padStart(12, '0')}`;
  const uuidShaped = (line: string): string =>
    line.replace(/"(uuid|parentUuid|logicalParentUuid)":"([^"]+)"/g, (_m, k: string, v: string) => `"${k}":"${uuidOf(v)}"`);
  for (const [name, ls] of Object.entries(cases)) {
    for (const shaped of [false, true]) {
      it(`${name}${shaped ? ' (uuid-shaped ids)' : ''}: as the importer counts`, async () => {
        const p = join(tmp, `${name.replace(/[^a-z]+/g, '-')}${shaped ? '-u' : ''}.jsonl`);
        await writeFile(p, `${(shaped ? ls.map(uuidShaped) : ls).join('\n')}\n`);
        const fast = scanSession(await candidate('claude-code', p));
        expect({ requests: fast.requests, compactions: fast.compactions }).toEqual(await full(p));
      });
    }
  }
});
