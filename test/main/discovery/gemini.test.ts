import { copyFile, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverSessions } from '../../../src/main/discovery/discover';

const G = 'fixtures/gemini-cli';
const LEGACY = 'session-2025-12-30T06-53-7bc58f7d.json';
const JSONL = 'session-2026-07-14T09-00-5d0c2a9e.jsonl';

describe('Gemini CLI sessions in ls', () => {
  it('lists each chat of each project folder, joins subagent files to their session, and skips the rest', async () => {
    const base = await mkdtemp(join(tmpdir(), 'palimpsest-gemini-'));
    const home = join(base, 'home');
    const hashed = join(home, '.gemini', 'tmp', '86bc0e27f2bad5ee2e2625969dc74484f7717cff50ea68e3c3f18194c802a493', 'chats');
    const named = join(home, '.gemini', 'tmp', 'my-project', 'chats');
    await mkdir(hashed, { recursive: true });
    await mkdir(join(named, '5d0c2a9e-3b7f-4c1e-9a42-6f1d8e0b7c31'), { recursive: true });
    await copyFile(join(G, LEGACY), join(hashed, LEGACY));
    await writeFile(join(hashed, '..', 'logs.json'), '[]\n');
    await copyFile(join(G, 'written', JSONL), join(named, JSONL));
    const sub = '{"sessionId":"b1","projectHash":"h","startTime":"2026-07-14T09:02:00Z","kind":"subagent"}\n';
    await writeFile(join(named, '5d0c2a9e-3b7f-4c1e-9a42-6f1d8e0b7c31', 'b1.jsonl'), sub);
    const d = await discoverSessions({
      home,
      env: { PALIMPSEST_CACHE_DIR: join(base, 'cache') },
      platform: 'linux',
      harnesses: ['gemini-cli'],
    });
    const ss = [...d.sessions].sort((a, b) => a.path.localeCompare(b.path));
    expect(ss.map((s) => [s.path.slice(home.length), s.files])).toEqual([
      [`/.gemini/tmp/86bc0e27f2bad5ee2e2625969dc74484f7717cff50ea68e3c3f18194c802a493/chats/${LEGACY}`, 1],
      [`/.gemini/tmp/my-project/chats/${JSONL}`, 2],
    ]);
    const [legacy, jsonl] = ss;
    expect(legacy).toMatchObject({
      id: '7bc58f7d-1ed0-4f0a-a3ea-0d3986695c8e',
      requests: 15,
      compactions: 0,
      model: 'gemini-3-pro-preview',
    });
    expect(legacy?.title).toBe('Enable terminal title updates in Gemini CLI.');
    // As the importer counts them on the default branch: the rewound call is not one of them.
    expect(jsonl).toMatchObject({ id: '5d0c2a9e-3b7f-4c1e-9a42-6f1d8e0b7c31', requests: 7, compactions: 1, badLines: 1 });
  });

  it('lists a 0.61 --resume stub with the session it belongs to, not as a session of its own', async () => {
    // The real run: resuming opened session-…T21-01-a630fd7b.jsonl (metadata and opening context
    // only, same sessionId) and appended the turn to the first file.
    const run = 'fixtures/fidelity/logs/gemini-cli-0.61.0/tools-resume/tmp/work/chats';
    const base = await mkdtemp(join(tmpdir(), 'palimpsest-gemini-'));
    const home = join(base, 'home');
    const chats = join(home, '.gemini', 'tmp', 'work', 'chats');
    await mkdir(chats, { recursive: true });
    for (const n of ['session-2026-12-02T21-00-a630fd7b.jsonl', 'session-2026-12-02T21-01-a630fd7b.jsonl'])
      await copyFile(join(run, n), join(chats, n));
    const d = await discoverSessions({
      home,
      env: { PALIMPSEST_CACHE_DIR: join(base, 'cache') },
      platform: 'linux',
      harnesses: ['gemini-cli'],
    });
    expect(d.sessions.map((s) => [s.path.slice(chats.length), s.files])).toEqual([['/session-2026-12-02T21-00-a630fd7b.jsonl', 2]]);
  });

  it('lists a 0.41 --resume stub, the metadata line alone, with the session it belongs to', async () => {
    // The real run: resuming opened session-…T21-00-6d594ecf.jsonl (one metadata line, same
    // sessionId, no message) and appended the turns to the first file.
    const run = 'fixtures/fidelity/logs/gemini-cli-0.41.2/tools-resume/tmp/work/chats';
    const base = await mkdtemp(join(tmpdir(), 'palimpsest-gemini-'));
    const home = join(base, 'home');
    const chats = join(home, '.gemini', 'tmp', 'work', 'chats');
    await mkdir(chats, { recursive: true });
    for (const n of ['session-2026-12-02T20-59-6d594ecf.jsonl', 'session-2026-12-02T21-00-6d594ecf.jsonl'])
      await copyFile(join(run, n), join(chats, n));
    const d = await discoverSessions({
      home,
      env: { PALIMPSEST_CACHE_DIR: join(base, 'cache') },
      platform: 'linux',
      harnesses: ['gemini-cli'],
    });
    expect(d.sessions.map((s) => [s.path.slice(chats.length), s.files, s.requests])).toEqual([
      ['/session-2026-12-02T20-59-6d594ecf.jsonl', 2, 5],
    ]);
  });

  it('still lists a lone metadata-only chat (no first prompt yet) as a session', async () => {
    const run = 'fixtures/fidelity/logs/gemini-cli-0.41.2/tools-resume/tmp/work/chats';
    const base = await mkdtemp(join(tmpdir(), 'palimpsest-gemini-'));
    const home = join(base, 'home');
    const chats = join(home, '.gemini', 'tmp', 'work', 'chats');
    await mkdir(chats, { recursive: true });
    await copyFile(join(run, 'session-2026-12-02T21-00-6d594ecf.jsonl'), join(chats, 'session-2026-12-02T21-00-6d594ecf.jsonl'));
    const d = await discoverSessions({
      home,
      env: { PALIMPSEST_CACHE_DIR: join(base, 'cache') },
      platform: 'linux',
      harnesses: ['gemini-cli'],
    });
    expect(d.sessions.map((s) => [s.path.slice(chats.length), s.files])).toEqual([['/session-2026-12-02T21-00-6d594ecf.jsonl', 1]]);
  });
});
