import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FollowUpdate } from '../../../src/main/follow/diff';
import { SessionFollower } from '../../../src/main/follow/follower';
import { loadSession } from '../../../src/main/session/load';
import { SessionInspector } from '../../../src/main/session/inspector';
import type { LoadedSession } from '../../../src/main/session/types';
import { inspectJson } from '../../../src/main/present/json';

const SOURCE = 'fixtures/claude-code/tool_heavy.jsonl';
const LINES = readFileSync(SOURCE, 'utf8')
  .split('\n')
  .filter((l) => l !== '');

async function open(path: string, loaded?: LoadedSession): Promise<SessionInspector> {
  const inspector = new SessionInspector(loaded ?? (await loadSession(path, { resumable: true })));
  await inspector.loadRuleTexts();
  return inspector;
}

async function until(what: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!what()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((ok) => setTimeout(ok, 20));
  }
}

describe('SessionFollower', () => {
  let dir: string;
  let file: string;
  let updates: FollowUpdate[];
  let follower: SessionFollower | null;
  const start = async (): Promise<SessionFollower> =>
    (follower = await SessionFollower.start({ path: file, open, onUpdate: (u) => void updates.push(u), pollMs: 50, quietMs: 400 }));
  const requests = (): number => new Set(updates.filter((u) => u.type === 'request').map((u) => (u as { index: number }).index)).size;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'palimpsest-follow-'));
    file = join(dir, 'session.jsonl');
    updates = [];
    follower = null;
  });
  afterEach(async () => {
    await follower?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('emits what is appended, ending as a fresh load does', async () => {
    writeFileSync(file, LINES.slice(0, 12).join('\n') + '\n');
    await start();
    const first = requests();
    appendFileSync(file, LINES.slice(12).join('\n') + '\n');
    const fresh = await open(file);
    const want = fresh.replay().requests.length;
    await fresh.session.dispose();
    expect(want).toBeGreaterThan(first);
    await until(() => requests() === want);
    expect(updates.some((u) => u.type === 'reloaded')).toBe(false);
  });

  it('reads appended lines on from where it stopped, ending as a fresh load does', async () => {
    writeFileSync(file, LINES.slice(0, 12).join('\n') + '\n');
    const loads: boolean[] = [];
    follower = await SessionFollower.start({
      path: file,
      open,
      onUpdate: (u) => void updates.push(u),
      onLoaded: (l) => void loads.push(l.readOn),
      pollMs: 50,
      quietMs: 400,
    });
    for (let at = 12; at < LINES.length; at += 5) {
      appendFileSync(file, LINES.slice(at, at + 5).join('\n') + '\n');
      const n = loads.length;
      await until(() => loads.length > n);
    }
    const fresh = await open(file);
    const want = inspectJson(file, fresh, fresh.defaultBranch, []);
    await fresh.session.dispose();
    await until(() => requests() === want.requests.length);
    // The first load reads from the start; every append after it is read on.
    expect(loads[0]).toBe(false);
    expect(loads.slice(1).filter((readOn) => !readOn)).toEqual([]);
    expect(loads.length).toBeGreaterThan(2);
    const followed = follower.current as SessionInspector;
    const got = inspectJson(file, followed, followed.defaultBranch, []);
    expect(got.requests).toEqual(want.requests);
    expect(got.diagnostics).toEqual(want.diagnostics);
    expect(updates.some((u) => u.type === 'reloaded')).toBe(false);
  });

  it('waits for a half-written last line', async () => {
    writeFileSync(file, LINES.slice(0, 12).join('\n') + '\n');
    await start();
    const before = updates.length;
    const line = LINES.slice(12).join('\n') + '\n';
    const cut = line.length - 40;
    appendFileSync(file, line.slice(0, cut));
    await new Promise((ok) => setTimeout(ok, 200));
    expect(updates.slice(before).filter((u) => u.type === 'finding')).toEqual([]);
    appendFileSync(file, line.slice(cut));
    await until(() => updates.slice(before).some((u) => u.type === 'request'));
    expect(updates.slice(before).filter((u) => u.type === 'finding' && u.rule.startsWith('READ_'))).toEqual([]);
  });

  it('reports a bad appended line with its file and line, and goes on', async () => {
    writeFileSync(file, LINES.slice(0, 12).join('\n') + '\n');
    await start();
    appendFileSync(file, '{"not json\n' + LINES.slice(12).join('\n') + '\n');
    await until(() => updates.some((u) => u.type === 'finding' && u.rule === 'READ_INVALID_JSON'));
    const bad = updates.find((u) => u.type === 'finding' && u.rule === 'READ_INVALID_JSON') as { file: string; line: number };
    expect(bad.file).toBe(file);
    expect(bad.line).toBe(13);
    await until(() => requests() > 1);
  });

  it('reloads, with a note, a file truncated or rewritten in place', async () => {
    writeFileSync(file, LINES.join('\n') + '\n');
    await start();
    writeFileSync(file, LINES.slice(0, 10).join('\n') + '\n');
    await until(() => updates.some((u) => u.type === 'reloaded'));
    const note = updates.find((u) => u.type === 'reloaded') as { reason: string };
    expect(note.reason).toMatch(/truncated/);
    const at = updates.length;
    // Same size, other first bytes: a rewrite.
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, ' ' + text.slice(1));
    await until(() => updates.slice(at).some((u) => u.type === 'reloaded'));
    expect((updates.slice(at).find((u) => u.type === 'reloaded') as { reason: string }).reason).toMatch(/rewritten|replaced/);
  });

  it('withdraws a finding that what comes later answers', async () => {
    const lines = readFileSync('fixtures/palimpsest/basic.jsonl', 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    writeFileSync(file, lines.slice(0, 30).join('\n') + '\n');
    await start();
    // The compaction has started and not ended yet.
    expect(updates.some((u) => u.type === 'finding' && u.rule === 'ORPHAN_COMPACTION_START')).toBe(true);
    appendFileSync(file, lines.slice(30).join('\n') + '\n');
    await until(() => updates.some((u) => u.type === 'withdrawn' && u.rule === 'ORPHAN_COMPACTION_START'));
    await until(() => updates.some((u) => u.type === 'compaction' && u.outcome === 'committed'));
  });
});
