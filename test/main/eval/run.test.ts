import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseShard } from '../../../src/shared/eval/cells';
import { runEval } from '../../../src/main/eval/run';
import { readResults } from '../../../src/main/eval/results-file';

/** The eval runner on the real DSH example spec (fixtures/eval/dsh.spec.yaml): 4 cells, a few seconds. */
const SPEC = 'fixtures/eval/dsh.spec.yaml';
let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pal-eval-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

const env = () => ({ ...process.env, PALIMPSEST_DATA_DIR: dir });

describe('runEval', () => {
  it('runs every cell once, appends a line per cell, and scores against the hand-checked facts', async () => {
    const resultsFile = join(dir, 'a.jsonl');
    const r = await runEval({ specFile: SPEC, resultsFile, env: env() });
    if (!r.ok) throw new Error(r.error);
    expect(r.value.totalCells).toBe(4);
    expect(r.value.ran).toBe(4);
    expect(r.value.errors).toEqual([]);
    const back = await readResults(resultsFile);
    expect(back.problems).toEqual([]);
    expect(back.lines.map((l) => `${l.cell.strategy}×${l.cell.model}`).sort()).toEqual([
      'extractive×none',
      'one-shot×mock:extractive',
      'one-shot×mock:replay-original',
      'truncate×none',
    ]);
    // The harness's own one-sentence summary keeps none of the fifteen premises (fixtures/eval/README.md).
    const replay = back.lines.find((l) => l.cell.model === 'mock:replay-original');
    expect(replay?.run.mock).toBe(true);
    expect(replay?.score.recall.constraint).toBe(0);
    expect(r.value.misses).toEqual([]);
  });

  it('refuses to add to a results file without --resume, and --resume redoes nothing', async () => {
    const resultsFile = join(dir, 'a.jsonl');
    const again = await runEval({ specFile: SPEC, resultsFile, env: env() });
    expect(again).toEqual({ ok: false, error: expect.stringContaining('resume that run (--resume)') });
    const resumed = await runEval({ specFile: SPEC, resultsFile, resume: true, env: env() });
    if (!resumed.ok) throw new Error(resumed.error);
    expect(resumed.value.ran).toBe(0);
    expect(resumed.value.skipped).toBe(4);
    expect((await readResults(resultsFile)).lines).toHaveLength(4);
  });

  it('resumes an interrupted run: a cut last line is skipped and its cell runs again', async () => {
    const resultsFile = join(dir, 'b.jsonl');
    const first = await runEval({ specFile: SPEC, resultsFile, env: env() });
    if (!first.ok) throw new Error(first.error);
    const lines = (await readFile(resultsFile, 'utf8')).split('\n').filter(Boolean);
    await writeFile(resultsFile, `${lines.slice(0, 2).join('\n')}\n${(lines[2] as string).slice(0, 100)}`);
    const resumed = await runEval({ specFile: SPEC, resultsFile, resume: true, env: env() });
    if (!resumed.ok) throw new Error(resumed.error);
    expect(resumed.value.skipped).toBe(2);
    expect(resumed.value.ran).toBe(2);
    expect(resumed.value.problems[0]).toMatch(/not JSON/);
  });

  it('splits the cells across shards: the union of the shards is every cell exactly once', async () => {
    const keys: string[] = [];
    for (const k of [1, 2, 3]) {
      const shard = parseShard(`${k}/3`);
      if (!shard.ok) throw new Error(shard.error);
      const r = await runEval({ specFile: SPEC, resultsFile: join(dir, `shard${k}.jsonl`), shard: shard.value, env: env() });
      if (!r.ok) throw new Error(r.error);
      keys.push(...r.value.lines.map((l) => l.cell.key));
    }
    expect(keys).toHaveLength(4);
    expect(new Set(keys).size).toBe(4);
  });

  it('stops scheduling at a spending limit and says so', async () => {
    const spec = join(dir, 'limited.spec.yaml');
    const text = (await readFile(SPEC, 'utf8'))
      .replace(/^repeats: 1$/m, 'repeats: 3\nlimits: { requests: 2 }')
      .replace(/path: \.\.\//g, `path: ${resolve('fixtures')}/`)
      .replace(/facts: facts\//, `facts: ${resolve('fixtures/eval/facts')}/`)
      .replace(/script: mock\//, `script: ${resolve('fixtures/eval/mock')}/`);
    await writeFile(spec, text);
    const r = await runEval({ specFile: spec, resultsFile: join(dir, 'limited.jsonl'), concurrency: 1, env: env() });
    if (!r.ok) throw new Error(r.error);
    expect(r.value.stopped).toMatch(/limits\.requests/);
    expect(r.value.ran).toBeLessThan(r.value.totalCells);
  });

  it('reports a spec that does not load, with the file and field', async () => {
    const spec = join(dir, 'bad.spec.yaml');
    await writeFile(spec, 'name: x\ntraces: []\nstrategies: [{ id: nope }]\n');
    const r = await runEval({ specFile: spec, env: env() });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toContain('bad.spec.yaml');
  });
});

describe('trace globs', () => {
  it('expand relative to the spec, sorted, with ** across folders', async () => {
    const { expandTracePath } = await import('../../../src/main/eval/files');
    const found = await expandTracePath(resolve('fixtures'), 'dsh/**/compaction-*/session.jsonl');
    expect(found).toContain('dsh/examples/headless-agent/tests/snapshots/compaction-recovery/session.jsonl');
    expect([...found].sort()).toEqual(found);
    expect(await expandTracePath(resolve('fixtures'), 'dsh/**/no-such-*.jsonl')).toEqual([]);
  });
});

describe('the LLM judge', () => {
  it('is its own column: a verdict per run, and the deterministic scores do not change', async () => {
    const script = JSON.parse(await readFile('fixtures/eval/mock/dsh-compaction-recovery.script.json', 'utf8')) as { steps: unknown[] };
    script.steps.unshift({
      label: 'judge',
      when: { systemContains: 'You check a handoff summary' },
      times: 0,
      reply: { content: [{ type: 'text', text: '{"pass": false, "score": 0.25, "rationale": "Most premises are gone."}' }] },
    });
    await writeFile(join(dir, 'judge.script.json'), JSON.stringify(script));
    const spec = join(dir, 'judged.spec.yaml');
    const text = (await readFile(SPEC, 'utf8'))
      .replace(/path: \.\.\//g, `path: ${resolve('fixtures')}/`)
      .replace(/facts: facts\//, `facts: ${resolve('fixtures/eval/facts')}/`)
      .replace(/script: mock\/dsh-compaction-recovery\.script\.json/, `script: ${join(dir, 'judge.script.json')}`);
    await writeFile(spec, `${text}\njudge:\n  model: "mock:judge"\n`);
    const plain = await runEval({ specFile: SPEC, resultsFile: join(dir, 'plain.jsonl'), env: env() });
    const judged = await runEval({ specFile: spec, resultsFile: join(dir, 'judged.jsonl'), env: env() });
    if (!plain.ok || !judged.ok) throw new Error(plain.ok ? (judged.ok ? '' : judged.error) : plain.error);
    const withSummary = judged.value.lines.filter((l) => l.run.summary !== null);
    expect(withSummary.length).toBeGreaterThan(0);
    for (const l of withSummary)
      expect(l.judge).toEqual({ model: 'mock:judge', pass: false, score: 0.25, rationale: 'Most premises are gone.', error: null });
    const scores = (r: typeof plain) =>
      r.ok ? r.value.lines.map((l) => `${l.cell.strategy}×${l.cell.model}=${String(l.score.recall.overall)}`).sort() : [];
    expect(scores(judged)).toEqual(scores(plain));
  });
});
