import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBuilt, type Run } from './run-built';

/* `palimpsest forensics` and the survival rates `inspect --json` carries, on a real Claude Code auto-compaction. */

const REAL = 'fixtures/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl';
const ID = 'dd3cc2e6-a191-4331-a0f0-2473e6d7692d';
const CATS = ['paths', 'commands', 'identifiers', 'urls', 'errors', 'numbers', 'constraints', 'tasks', 'decisions'];

const run = (...args: string[]): Promise<Run> => runBuilt(args, 120_000);

interface Rate {
  total: number;
  verbatim: number;
  normalised: number;
  lost: number;
  rate: number | null;
}

describe('palimpsest forensics', () => {
  it('prints per compaction the survival of each category and the lost anchors with their seqs (--json)', async () => {
    const r = await run('forensics', REAL, '--json');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout) as {
      compactions: { id: string; survival: Record<string, Rate>; lost: { category: string; text: string; seq: number }[] }[];
    };
    expect(j.compactions.map((c) => c.id)).toEqual([ID]);
    const c = j.compactions[0];
    expect(Object.keys(c?.survival ?? {})).toEqual(CATS);
    for (const k of CATS) {
      const x = c?.survival[k] as Rate;
      expect(x.verbatim + x.normalised + x.lost).toBe(x.total);
    }
    const lost = CATS.reduce((n, k) => n + (c?.survival[k] as Rate).lost, 0);
    expect(c?.lost).toHaveLength(lost);
    expect(c?.lost[0]).toEqual({ category: expect.any(String), text: expect.any(String), seq: expect.any(Number) });
  });

  it('prints the same as text, and picks one compaction with --compaction', async () => {
    const r = await run('forensics', REAL, '--compaction', ID);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`compaction ${ID}`);
    expect(r.stdout).toMatch(/paths +\d+\/\d+ \(\d+ %\)/);
    const bad = await run('forensics', REAL, '--compaction', 'nope');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`compactions: ${ID}`);
  });

  it('says so when a session has no compaction, and never crashes on bad input', async () => {
    const none = await run('forensics', 'fixtures/claude-code/short.jsonl');
    expect(none.code).toBe(0);
    expect(none.stdout).toContain('no compaction in this session');
    const nj = JSON.parse((await run('forensics', 'fixtures/claude-code/short.jsonl', '--json')).stdout) as { compactions: unknown[] };
    expect(nj.compactions).toEqual([]);
    const tmp = await mkdtemp(join(tmpdir(), 'palimpsest-forensics-'));
    const junk = join(tmp, 'junk.jsonl');
    await writeFile(junk, '{"not": "a session"\n\u0000\u0001garbage\n');
    const j = await run('forensics', junk, '--json');
    expect([0, 2]).toContain(j.code);
    expect(j.stderr).not.toMatch(/at .*\.js:\d+/);
    expect((await run('forensics')).code).toBe(2);
  });
});

describe('palimpsest inspect --json', () => {
  it('carries the survival rates per compaction', async () => {
    const r = await run('inspect', REAL, '--json');
    const j = JSON.parse(r.stdout) as { compactions: { id: string; survival: Record<string, Rate> | null }[] };
    const c = j.compactions.find((x) => x.id === ID);
    expect(Object.keys(c?.survival ?? {})).toEqual(CATS);
    expect(c?.survival?.paths?.total).toBeGreaterThan(0);
  });
});
