import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiFailure } from '../../../src/main/access/failure';
import { Library } from '../../../src/main/library/library';
import { createHostContext } from '../../../src/main/host/host-context';
import { Discovery } from '../../../src/shared/api/library-contract';

const CLAUDE = 'fixtures/claude-code/short.jsonl';
const CODEX = 'fixtures/codex/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl';

let home: string;
let outside: string;

beforeAll(() => {
  // A fake home with one Claude Code and one Codex session where those harnesses keep them.
  home = mkdtempSync(join(tmpdir(), 'palimpsest-home-'));
  mkdirSync(join(home, '.claude', 'projects', '-home-dev-shop'), { recursive: true });
  copyFileSync(CLAUDE, join(home, '.claude', 'projects', '-home-dev-shop', 'short.jsonl'));
  mkdirSync(join(home, '.codex', 'sessions', '2026', '02', '23'), { recursive: true });
  copyFileSync(CODEX, join(home, '.codex', 'sessions', '2026', '02', '23', CODEX.split('/').pop() as string));
  writeFileSync(join(home, '.claude', 'settings.json'), '{}');
  // A folder with a symbolic link that points out of it.
  outside = mkdtempSync(join(tmpdir(), 'palimpsest-folder-'));
  copyFileSync('fixtures/palimpsest/basic.jsonl', join(outside, 'inside.jsonl'));
  symlinkSync(resolve('fixtures/palimpsest/branches.jsonl'), join(outside, 'link.jsonl'));
});
afterAll(() => {
  rmSync(home, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

const machine = () => ({ home, env: {}, useIndex: false });

describe('the library', () => {
  it("lists the machine's sessions per harness and the folders' sessions, in the contract's shape", async () => {
    const lib = new Library({ folders: ['fixtures/rind'], machine: machine() });
    const d = await lib.discover(false);
    expect(Discovery.safeParse(d).success).toBe(true);
    const rows = d.sessions.map((s) => [s.harness, s.origin]);
    expect(rows).toEqual(
      expect.arrayContaining([
        ['claude-code', 'machine'],
        ['codex', 'machine'],
        ['rind', 'folder'],
        ['rind', 'folder'],
      ]),
    );
    expect(d.sessions).toHaveLength(4);
    const codex = d.sessions.find((s) => s.harness === 'codex');
    expect(codex?.root).toBe(join(home, '.codex', 'sessions'));
    expect(codex?.requests).toBeGreaterThan(0);
    expect(d.roots.find((r) => r.source === 'argument')).toMatchObject({
      harness: null,
      path: resolve('fixtures/rind'),
      exists: true,
      sessions: 2,
    });
    // Newest first.
    const times = d.sessions.map((s) => s.startedAt ?? s.modifiedAt);
    expect([...times].sort().reverse()).toEqual(times);
  });

  it('allows the files it was started with, files under its folders, and discovered sessions only', async () => {
    const lib = new Library({ files: ['fixtures/palimpsest/api-small.jsonl'], folders: [outside], machine: machine() });
    expect(await lib.allows('fixtures/palimpsest/api-small.jsonl')).toBe(true);
    expect(await lib.allows(join(outside, 'inside.jsonl'))).toBe(true);
    // Discovered before answering: the session in the fake home is allowed, its settings are not.
    expect(await lib.allows(join(home, '.claude', 'projects', '-home-dev-shop', 'short.jsonl'))).toBe(true);
    expect(await lib.allows(join(home, '.claude', 'settings.json'))).toBe(false);
    // No way out of a folder by `..` or a symbolic link: paths are compared once resolved.
    expect(await lib.allows(join(outside, '..', 'elsewhere.jsonl'))).toBe(false);
    expect(await lib.allows(join(outside, 'link.jsonl'))).toBe(false);
    expect(await lib.allows('/etc/passwd')).toBe(false);
    expect(lib.refusal('/etc/passwd')).toMatch(/not a session this host may open.*palimpsest serve <folder>/);
  });

  it('asks the user (Electron) only for paths nothing allowed, and remembers a yes', async () => {
    const asked: string[] = [];
    const lib = new Library({ files: [CLAUDE], machine: false, confirm: async (p) => (asked.push(p), p.endsWith('basic.jsonl')) });
    expect(await lib.allows(CLAUDE)).toBe(true);
    expect(await lib.allows('fixtures/palimpsest/basic.jsonl')).toBe(true);
    expect(await lib.allows('fixtures/palimpsest/basic.jsonl')).toBe(true);
    expect(await lib.allows('/etc/passwd')).toBe(false);
    expect(asked).toEqual(['fixtures/palimpsest/basic.jsonl', '/etc/passwd']);
  });

  it('picks through a native dialog where there is one, and says what to do where there is none', async () => {
    const web = new Library({ machine: false });
    await expect(web.pick('files')).rejects.toSatisfy(
      (e) => e instanceof ApiFailure && e.code === 'NOT_AVAILABLE' && /type the path/.test(e.message),
    );
    const electron = new Library({ machine: false, picker: async (kind) => (kind === 'folder' ? ['fixtures/rind'] : []) });
    expect(await electron.pick('files')).toEqual([]);
    expect(await electron.pick('folder')).toEqual(['fixtures/rind']);
    expect(await electron.allows('fixtures/rind/20260514_101500_a1b2c3d4')).toBe(true);
    expect((await electron.discover(true)).roots).toEqual([expect.objectContaining({ source: 'picked', sessions: 2 })]);
  });
});

describe('the host context', () => {
  it('opens session files, lists folders, and serves discoverSessions, pickPaths and openSession through the handlers', async () => {
    const c = await createHostContext({
      paths: ['fixtures/palimpsest/api-small.jsonl', 'fixtures/rind', 'fixtures/rind/20260514_101500_a1b2c3d4', 'nope'],
      machine: false,
    });
    try {
      expect(c.files).toEqual(['fixtures/palimpsest/api-small.jsonl', 'fixtures/rind/20260514_101500_a1b2c3d4']);
      expect(c.folders).toEqual(['fixtures/rind']);
      expect(c.missing).toEqual(['nope']);
      const d = await c.handlers.discoverSessions({});
      expect(d.ok && d.value.sessions.map((s) => s.harness)).toEqual(['rind', 'rind']);
      expect(await c.handlers.pickPaths({ kind: 'files' })).toMatchObject({ ok: false, error: { code: 'NOT_AVAILABLE' } });
      expect(await c.handlers.pickPaths({ kind: 'everything' })).toMatchObject({ ok: false, error: { code: 'BAD_INPUT' } });
      // A Rind session is a folder: it opens.
      const rind = await c.handlers.openSession({ path: 'fixtures/rind/20260514_120000_deadbeef' });
      expect(rind.ok && rind.value.format).toBe('rind');
      expect(await c.handlers.openSession({ path: 'fixtures/palimpsest/basic.jsonl' })).toMatchObject({
        ok: false,
        error: { code: 'FORBIDDEN_PATH' },
      });
    } finally {
      c.dispose();
    }
  });
});

describe("the library's capture marker", () => {
  it('marks a session with a capture named for its file beside it, and only that one', async () => {
    const d = mkdtempSync(join(tmpdir(), 'palimpsest-capture-mark-'));
    try {
      copyFileSync('fixtures/palimpsest/basic.jsonl', join(d, 'a.jsonl'));
      copyFileSync('fixtures/palimpsest/basic.jsonl', join(d, 'b.jsonl'));
      copyFileSync('fixtures/captures/palimpsest.capture.jsonl', join(d, 'a.jsonl.capture.jsonl'));
      const c = await createHostContext({ paths: [d], machine: false });
      try {
        const r = await c.handlers.discoverSessions({});
        const marks = r.ok
          ? Object.fromEntries(r.value.sessions.filter((s) => s.harness !== null).map((s) => [s.path.split('/').pop(), s.capture]))
          : null;
        expect(marks).toEqual({ 'a.jsonl': true, 'b.jsonl': false });
      } finally {
        c.dispose();
      }
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });
});

describe('a host started with captures (`serve FILE --capture C`)', () => {
  const RUN = 'fixtures/fidelity/logs/claude-code-2.1.332/compact-http-500';
  const SESSION = `${RUN}/projects/-tmp-palimpsest-fidelity-run-claude-code-compact-http-500-work/d7672e9b-78eb-4ae0-bede-e6cfd3bf86dc.jsonl`;
  const CAPTURE = 'fixtures/captures/fidelity/claude-code-2.1.332.compact-http-500.capture.jsonl';

  it('joins them to that session whenever it opens, and to no other', async () => {
    const c = await createHostContext({ paths: [SESSION], captures: [CAPTURE], machine: false });
    try {
      expect(c.unusable).toEqual([]);
      const s = await c.handlers.openSession({ path: SESSION });
      expect(s.ok && s.value.captures).toEqual([expect.objectContaining({ format: 'palimpsest', exchanges: 6, taken: 6 })]);
      const t = s.ok ? await c.handlers.listTimeline({ sessionId: s.value.sessionId }) : null;
      expect(t?.ok && t.value.joined).toBe(true);
    } finally {
      c.dispose();
    }
  });

  it('refuses captures with no single session file to join, and names a missing one', async () => {
    const two = await createHostContext({ paths: [SESSION, 'fixtures/palimpsest/basic.jsonl'], captures: [CAPTURE], machine: false });
    two.dispose();
    expect(two.unusable).toEqual(['--capture joins one session: give exactly one session file']);
    const folder = await createHostContext({ paths: ['fixtures/rind'], captures: [CAPTURE], machine: false });
    folder.dispose();
    expect(folder.unusable).toEqual(['--capture joins one session: give exactly one session file']);
    const missing = await createHostContext({ paths: [SESSION], captures: ['no-such.capture.jsonl'], machine: false });
    missing.dispose();
    expect(missing.missing).toEqual(['no-such.capture.jsonl']);
  });
});
