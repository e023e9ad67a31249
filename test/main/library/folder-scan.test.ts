import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanFolder } from '../../../src/main/library/folder-scan';
import { sniffFormat } from '../../../src/main/library/sniff';

describe('sessions in a folder the host was given', () => {
  it('sniffs the format of a file from its first lines, plain or zstd', async () => {
    expect(await sniffFormat('fixtures/palimpsest/basic.jsonl')).toBe('palimpsest');
    expect(await sniffFormat('fixtures/claude-code/short.jsonl')).toBe('claude-code');
    expect(await sniffFormat('fixtures/dsh-zstd/session.jsonl.zstd')).toBe('dsh');
    expect(await sniffFormat('fixtures/bad-input/empty.jsonl')).toBeNull();
  });

  it('lists every Palimpsest file of a folder with the counts of its scan', async () => {
    const scan = await scanFolder('fixtures/palimpsest');
    expect(scan.exists).toBe(true);
    const basic = scan.sessions.find(
      (s) => s.path === resolve('fixtures/palimpsest/basic.jsonl') || s.path.endsWith('palimpsest/basic.jsonl'),
    );
    expect(basic).toMatchObject({
      harness: 'palimpsest',
      requests: 10,
      compactions: 1,
      files: 1,
      title: 'Fix the last-page bug in paginate()',
    });
    expect(scan.sessions.every((s) => s.harness === 'palimpsest')).toBe(true);
    expect(scan.sessions).toHaveLength(10);
  });

  it('takes a Rind folder as one session and Claude Code subagents as files of their session', async () => {
    const rind = await scanFolder('fixtures/rind');
    expect(rind.sessions.map((s) => [s.harness, s.path.split('/').pop(), s.files])).toEqual([
      ['rind', '20260514_101500_a1b2c3d4', 3],
      ['rind', '20260514_120000_deadbeef', expect.any(Number)],
    ]);
    const claude = await scanFolder('fixtures/claude-code');
    const names = claude.sessions.map((s) => s.path.split('/').pop());
    expect(names).toContain('4d5611e5-241a-462a-8d15-5122611a9569.jsonl');
    expect(names.some((n) => n?.startsWith('agent-'))).toBe(false);
    expect(claude.sessions.every((s) => s.harness === 'claude-code')).toBe(true);
  });

  it('lists a file no importer recognises with an unknown harness, and a missing folder as empty', async () => {
    const bad = await scanFolder('fixtures/bad-input');
    const empty = bad.sessions.find((s) => s.path.endsWith('empty.jsonl'));
    expect(empty).toMatchObject({ harness: null, requests: null, compactions: null });
    expect(empty?.problems[0]).toMatch(/no importer recognises/);
    expect(await scanFolder('fixtures/no-such-folder')).toEqual({ exists: false, sessions: [], problems: [] });
  });
});
