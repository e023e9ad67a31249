import { createHash } from 'node:crypto';
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Run, runBuilt } from './run-built';

const SAMPLE = 'fixtures/palimpsest/basic.jsonl';

let data = '';

/** The built command, with its data directory in a temporary folder and no provider key. */
const run = (...args: string[]): Promise<Run> =>
  runBuilt(args, 120_000, { ...process.env, PALIMPSEST_DATA_DIR: data, ANTHROPIC_API_KEY: '' });

beforeAll(async () => {
  data = await mkdtemp(join(tmpdir(), 'palimpsest-rerun-cli-'));
});

describe('palimpsest rerun / runs / compare on the bundled sample, with no key', () => {
  it('lists the strategies', async () => {
    const r = await run('rerun', '--list-strategies');
    expect(r.code).toBe(0);
    expect(
      r.stdout
        .split('\n')
        .map((l) => l.split(/\s+/)[0])
        .filter(Boolean),
    ).toEqual(['one-shot', 'layered', 'dsh-basic', 'preemptive', 'truncate', 'clear-tools', 'extractive']);
  });

  it('re-runs cmp_01 with a baseline and with the mock, appends to the results file, leaves the session untouched', async () => {
    const before = createHash('sha256')
      .update(await readFile(SAMPLE))
      .digest('hex');
    const a = await run('rerun', SAMPLE, '--compaction', 'cmp_01', '--strategy', 'extractive', '--window', '2000', '--json');
    expect(a.code).toBe(0);
    const ja = JSON.parse(a.stdout);
    expect(ja.runs[0].outcome).toBe('committed');
    expect(ja.runs[0].mock).toBe(false);
    expect(ja.file.startsWith(data)).toBe(true);
    const b = await run(
      'rerun',
      SAMPLE,
      '--compaction',
      'cmp_01',
      '--strategy',
      'one-shot',
      '--model',
      'mock:summarizer',
      '--window',
      '2000',
    );
    expect(b.code, b.stderr).toBe(0);
    expect(b.stdout).toContain("MOCK: answers are not a model's");
    expect(b.stdout).toContain('[MOCK SUMMARY — not a model]');
    const runs = await run('runs', SAMPLE, '--json');
    const jr = JSON.parse(runs.stdout);
    expect(jr.runs.map((x: { strategy: string }) => x.strategy)).toEqual(['extractive', 'one-shot']);
    expect(jr.runs.every((x: { stale: boolean }) => !x.stale)).toBe(true);
    const c = await run('compare', SAMPLE, '--compaction', 'cmp_01', '--json');
    expect(c.code).toBe(0);
    const jc = JSON.parse(c.stdout);
    expect(jc.comparison.rows.map((x: { subject: { id: string } }) => x.subject.id)[0]).toBe('original');
    expect(jc.comparison.rows).toHaveLength(3);
    // Anchors come by the categories of compaction forensics (`paths`; the key was `path` before).
    expect(jc.comparison.anchors.paths).toContain('src/paginate.ts');
    expect(
      createHash('sha256')
        .update(await readFile(SAMPLE))
        .digest('hex'),
    ).toBe(before);
    // A damaged line in the results file is reported with its line number, and the rest still compares.
    await appendFile(jr.file, '{"not a run"\n');
    const d = await run('compare', SAMPLE, '--compaction', 'cmp_01', '--json');
    expect(d.code).toBe(0);
    expect(d.stderr).toMatch(/runs\.jsonl:3: not JSON.*\(line skipped\)/);
    expect(JSON.parse(d.stdout).comparison.rows).toHaveLength(3);
  });

  it('says what is wrong: no target, an unknown strategy, a model without a key', async () => {
    expect((await run('rerun', SAMPLE, '--strategy', 'truncate')).stderr).toContain('give exactly one of --compaction ID or --request N');
    const u = await run('rerun', SAMPLE, '--request', '5', '--strategy', 'nope');
    expect(u.code).toBe(2);
    expect(u.stderr).toContain('Unknown strategy "nope"');
    const k = await run(
      'rerun',
      SAMPLE,
      '--compaction',
      'cmp_01',
      '--strategy',
      'one-shot',
      '--model',
      'anthropic:claude-haiku-4-5',
      '--window',
      '2000',
      '--json',
    );
    expect(k.code).toBe(1);
    const jk = JSON.parse(k.stdout);
    expect(jk.runs[0].outcome).toBe('failed');
    expect(jk.runs[0].calls[0].error.message).toMatch(/ANTHROPIC_API_KEY/);
  });

  it('takes the chain kept in settings when no --model is given, says so, and records each model as pinned there', async () => {
    const settings = {
      format: 'palimpsest-settings',
      version: 1,
      summarizationChain: [{ provider: 'mock', model: 'kept', params: { maxOutput: 1500 }, window: 8000, prices: { input: 1, output: 2 } }],
    };
    await writeFile(join(data, 'settings.json'), JSON.stringify(settings));
    try {
      const r = await run('rerun', SAMPLE, '--compaction', 'cmp_01', '--strategy', 'one-shot', '--window', '2000', '--json');
      expect(r.code, r.stderr).toBe(0);
      const run0 = JSON.parse(r.stdout).runs[0];
      expect(run0.models).toEqual([
        expect.objectContaining({
          provider: 'mock',
          model: 'kept',
          params: { maxOutput: 1500 },
          window: 8000,
          prices: { input: 1, output: 2 },
        }),
      ]);
      const text = await run('rerun', SAMPLE, '--compaction', 'cmp_01', '--strategy', 'one-shot', '--window', '2000');
      expect(text.stderr).toContain(`Summarization models from ${join(data, 'settings.json')}: mock:kept`);
      // --model wins; a model-free strategy never reads the settings, even when they are damaged.
      await writeFile(join(data, 'settings.json'), '{');
      const bad = await run('rerun', SAMPLE, '--compaction', 'cmp_01', '--strategy', 'one-shot', '--window', '2000');
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/settings\.json is not JSON.*--session-model/);
      // truncate on the sample falls back (exit 1, a finding), which is not a usage error.
      expect((await run('rerun', SAMPLE, '--compaction', 'cmp_01', '--strategy', 'truncate', '--window', '2000')).code).toBe(1);
      expect(
        (
          await run(
            'rerun',
            SAMPLE,
            '--compaction',
            'cmp_01',
            '--strategy',
            'one-shot',
            '--model',
            'mock:flag',
            '--model-max-output',
            '1500',
            '--window',
            '2000',
          )
        ).code,
      ).toBe(0);
    } finally {
      await rm(join(data, 'settings.json'), { force: true });
    }
  });
});
