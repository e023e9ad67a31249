import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHandlers, type Handlers } from '../../../src/main/api/handlers';
import { SessionRegistry } from '../../../src/main/api/sessions';
import { Library } from '../../../src/main/library/library';
import { CONTRACT, type EvalJob, type EvalProgressEvent, type ProgressEvent } from '../../../src/shared/api/contract';
import { value, errorOf } from './results';
import { DSH_SPEC as SPEC, DSH_TRACE as TRACE, slowSpec } from '../eval/slow-spec';

/*
 * The eval methods on the example spec fixtures/eval/dsh.spec.yaml (4 cells: truncate and
 * extractive without a model, one-shot with two mock models), with results under a temporary data
 * folder and the host's real path policy (a Library started with fixtures/eval and a temp folder).
 */

describe('eval handlers', () => {
  let dataDir: string;
  let folder: string;
  let registry: SessionRegistry;
  let handlers: Handlers;
  let progress: ProgressEvent[];

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'palimpsest-eval-data-'));
    folder = mkdtempSync(join(tmpdir(), 'palimpsest-eval-folder-'));
    const library = new Library({ files: [], folders: [resolve('fixtures/eval'), folder], machine: false });
    registry = new SessionRegistry({ allow: library });
    progress = [];
    handlers = createHandlers({
      registry,
      initialPaths: [],
      library,
      onProgress: (e) => progress.push(e),
      rerun: { env: { PALIMPSEST_DATA_DIR: dataDir } },
    });
  });
  afterEach(() => {
    registry.dispose();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(folder, { recursive: true, force: true });
  });

  async function finish(jobId: string): Promise<{ job: EvalJob; events: EvalProgressEvent[] }> {
    const events: EvalProgressEvent[] = [];
    let after = 0;
    for (;;) {
      const w = value(await handlers.watchEval({ jobId, after, waitMs: 5000 }));
      events.push(...w.events);
      after = w.next;
      if (w.job.state !== 'running' && w.events.length === 0) return { job: w.job, events };
    }
  }

  async function runDsh(): Promise<EvalJob> {
    const job = value(await handlers.startEval({ spec: SPEC }));
    return (await finish(job.jobId)).job;
  }

  it('lists the specs under the folders it was given, by name', async () => {
    const files = value(await handlers.listEvalFiles({}));
    expect(files.specs.map((s) => [s.path, s.name])).toEqual(
      expect.arrayContaining([
        [SPEC, 'dsh-compaction-recovery'],
        [resolve('fixtures/eval/claude-code.spec.yaml'), expect.any(String)],
      ]),
    );
    expect(files.resultsFolder).toBe(join(dataDir, 'evals'));
    expect(files.results).toEqual([]);
  });

  it('runs the spec: numbered progress events to 4/4, results under the data folder, the job summary', async () => {
    const started = value(await handlers.startEval({ spec: SPEC }));
    expect(started).toMatchObject({
      state: 'running',
      specName: 'dsh-compaction-recovery',
      done: 0,
      total: null,
      resume: false,
      shard: null,
    });
    expect(started.resultsFile?.startsWith(join(dataDir, 'evals'))).toBe(true);
    const { job, events } = await finish(started.jobId);
    expect(job).toMatchObject({ state: 'done', done: 4, total: 4, stopped: null, errors: [], error: null });
    expect(job.summary).toMatchObject({ totalCells: 4, shardCells: 4, skipped: 0, ran: 4, misses: 0 });
    expect(events.map((e) => e.index)).toEqual(events.map((_, i) => i));
    const cells = events.filter((e) => e.cell !== null);
    expect(cells.map((e) => [e.done, e.total])).toEqual([
      [1, 4],
      [2, 4],
      [3, 4],
      [4, 4],
    ]);
    expect(cells.map((e) => `${e.cell?.strategy} × ${e.cell?.model}`)).toEqual([
      'truncate × none',
      'extractive × none',
      'one-shot × mock:replay-original',
      'one-shot × mock:extractive',
    ]);
    expect(cells.map((e) => e.cell?.mock)).toEqual([false, false, true, true]);
    expect(events.at(-1)?.phase).toBe('done');
    expect(progress.filter((p) => p.operation === 'eval')).toEqual(events);
    for (const e of events) expect(CONTRACT.watchEval.output.shape.events.element.parse(e)).toEqual(e);
    expect(
      readFileSync(job.resultsFile ?? '', 'utf8')
        .trim()
        .split('\n'),
    ).toHaveLength(4);
    expect(value(await handlers.listEvalJobs({})).jobs.map((j) => j.jobId)).toEqual([started.jobId]);
    expect(value(await handlers.listEvalFiles({})).results.map((r) => r.path)).toEqual([job.resultsFile]);
  });

  it('refuses to run again into the same results without resume; with resume it skips every finished cell', async () => {
    const first = await runDsh();
    const again = errorOf(await handlers.startEval({ spec: SPEC }));
    expect(again.code).toBe('BAD_INPUT');
    expect(again.message).toMatch(/already holds 4 result\(s\) of "dsh-compaction-recovery": tick Resume/);
    const resumed = value(await handlers.startEval({ spec: SPEC, resume: true }));
    const { job } = await finish(resumed.jobId);
    expect(job).toMatchObject({ state: 'done', resultsFile: first.resultsFile, total: 0, done: 0 });
    expect(job.summary).toMatchObject({ skipped: 4, ran: 0 });
  });

  it('runs one shard into a results file of its own choosing', async () => {
    const results = join(folder, 'shard.results.jsonl');
    const a = value(await handlers.startEval({ spec: SPEC, shard: { k: 1, n: 2 }, results }));
    const b = (await finish(a.jobId)).job;
    expect(b.resultsFile).toBe(results);
    expect(b.summary?.shardCells).toBeLessThan(4);
    expect(readFileSync(results, 'utf8').trim().split('\n')).toHaveLength(b.summary?.ran ?? -1);
  });

  it('opens the results as the matrix: cells per trace and overall, recall as the CLI reports it, runs and facts in words', async () => {
    const job = await runDsh();
    const r = value(await handlers.openEvalResults({ file: job.resultsFile ?? '' }));
    expect(r.specName).toBe('dsh-compaction-recovery');
    // The spec was found by its name (this host ran it): its thresholds apply (none here), its facts are listed.
    expect(r.spec).toMatchObject({ file: SPEC, thresholds: false });
    expect(r.misses).toEqual([]);
    expect(r.aggregate.strategies).toEqual(['truncate', 'extractive', 'one-shot']);
    expect(r.aggregate.models).toEqual(['none', 'mock:replay-original', 'mock:extractive']);
    const overall = r.aggregate.cells.filter((c) => c.trace === null);
    expect(overall).toHaveLength(4);
    expect(r.aggregate.cells).toHaveLength(8);
    const recall = (s: string, m: string) => overall.find((c) => c.strategy === s && c.model === m)?.quality.recall?.mean;
    expect(recall('truncate', 'none')).toBeCloseTo(1 / 17);
    expect(recall('extractive', 'none')).toBeCloseTo(6 / 17);
    expect(recall('one-shot', 'mock:replay-original')).toBeCloseTo(1 / 17);
    expect(overall.find((c) => c.model === 'mock:extractive')?.mock).toBe(true);
    expect(overall.find((c) => c.model === 'none')?.mock).toBe(false);
    expect(r.runs).toHaveLength(4);
    expect(r.runs[0]).toMatchObject({ strategy: 'truncate', model: 'none', outcome: 'fallback', mock: false });
    expect(r.facts.find((f) => f.id === 'dsh-c3')?.text).toMatch(/Cordis composition/);
    expect(r.comparison).toBeNull();
  });

  it('compares with a baseline: the same file has no regression, a better baseline marks the drop', async () => {
    const job = await runDsh();
    const file = job.resultsFile ?? '';
    const same = value(await handlers.openEvalResults({ file, baseline: file }));
    expect(same.comparison?.regressions).toEqual([]);
    // A baseline in which extractive × none recalled everything.
    const better = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => {
        const j = JSON.parse(l) as { cell: { strategy: string }; score: { recall: { overall: number } } };
        if (j.cell.strategy === 'extractive') j.score.recall.overall = 1;
        return JSON.stringify(j);
      });
    const baseline = join(dataDir, 'evals', 'better.results.jsonl');
    writeFileSync(baseline, `${better.join('\n')}\n`);
    const r = value(await handlers.openEvalResults({ file, baseline }));
    expect(r.baseline).toMatchObject({ file: baseline, lines: 4 });
    expect(r.comparison?.regressions.map((d) => [d.strategy, d.model, d.trace, d.metric])).toEqual([
      ['extractive', 'none', '../dsh/examples/headless-agent/tests/snapshots/compaction-recovery/session.jsonl', 'recall'],
      ['extractive', 'none', null, 'recall'],
    ]);
    expect(r.comparison?.regressions[1]?.words).toMatch(/recall fell from 100.0 % to 35.3 %/);
  });

  it('gives a run beside the compaction it re-ran: the original first, then the run, with its score', async () => {
    const job = await runDsh();
    const file = job.resultsFile ?? '';
    const { runs } = value(await handlers.openEvalResults({ file }));
    const replay = runs.find((r) => r.model === 'mock:replay-original');
    const d = value(await handlers.evalRunDetail({ file, runId: replay?.runId ?? '' }));
    expect(d.comparison.rows.map((r) => r.subject.id)).toEqual(['original', replay?.runId]);
    expect(d.comparison.rows[0]?.subject.summary).toContain(
      '<compacted-summary>\nThe request established a durable compaction premise.\n</compacted-summary>',
    );
    expect(d.comparison.rows[1]?.subject.label).toMatch(/one-shot @ mock:replay-original \[mock\] #1/);
    for (const row of d.comparison.rows) expect(typeof row.subject.viewChars).toBe('number');
    expect(d.comparison.rows[1]?.diff).not.toBeNull();
    expect(d.run).toMatchObject({ runId: replay?.runId, model: 'mock:replay-original', mock: true });
    expect(d.facts.constraint?.total).toBe(15);
    expect(d.tracePath).toBe(TRACE);
    expect(d.stale).toEqual([]);
    // By cell key as well; and exactly one of the two.
    expect(value(await handlers.evalRunDetail({ file, key: replay?.key ?? '' })).run.runId).toBe(replay?.runId);
    expect(errorOf(await handlers.evalRunDetail({ file })).code).toBe('BAD_INPUT');
    expect(errorOf(await handlers.evalRunDetail({ file, runId: 'nope' })).message).toMatch(/No run nope/);
  });

  it('cancels a slow eval: the cell in flight is aborted and not written, the job ends cancelled saying so', async () => {
    const spec = slowSpec(folder);
    const started = value(await handlers.startEval({ spec }));
    // truncate finishes at once; one-shot then waits 30 s for the mock's first byte.
    let after = 0;
    for (let job = started; job.done < 1;) {
      const w = value(await handlers.watchEval({ jobId: started.jobId, after, waitMs: 5000 }));
      after = w.next;
      job = w.job;
    }
    const t0 = Date.now();
    const c = value(await handlers.cancelEval({ jobId: started.jobId }));
    expect(c.cancelled).toBe(true);
    const { job } = await finish(started.jobId);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(job.state).toBe('cancelled');
    expect(job.stopped).toMatch(/^cancelled: /);
    expect(job).toMatchObject({ done: 1, total: 2 });
    const lines = readFileSync(job.resultsFile ?? '', 'utf8')
      .trim()
      .split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { cell: { strategy: string } }).cell.strategy)).toEqual(['truncate']);
    expect(value(await handlers.cancelEval({ jobId: started.jobId })).cancelled).toBe(false);
    expect(errorOf(await handlers.watchEval({ jobId: 'gone', after: 0 })).code).toBe('NO_JOB');
  });

  it('fails the job, in a sentence naming the file, when a trace of the spec cannot be read', async () => {
    const spec = join(folder, 'broken.spec.yaml');
    writeFileSync(
      spec,
      readFileSync(SPEC, 'utf8').replace(
        '../dsh/examples/headless-agent/tests/snapshots/compaction-recovery/session.jsonl',
        join(folder, 'gone.jsonl'),
      ),
    );
    const started = value(await handlers.startEval({ spec }));
    const { job, events } = await finish(started.jobId);
    expect(job.state).toBe('failed');
    expect(job.error).toContain('gone.jsonl');
    expect(job.total).toBeNull();
    expect(events.at(-1)).toMatchObject({ phase: 'failed', error: job.error });
    // A spec that does not parse cannot start at all: an error value, no job.
    writeFileSync(spec, 'name: x\nunknown: 1\n');
    expect(errorOf(await handlers.startEval({ spec })).code).toBe('UNREADABLE');
  });

  it('refuses paths outside the policy, and results that would be appended to anything but a results file', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'palimpsest-eval-elsewhere-'));
    try {
      const spec = join(elsewhere, 'x.spec.yaml');
      writeFileSync(spec, readFileSync(SPEC, 'utf8'));
      const s = errorOf(await handlers.startEval({ spec }));
      expect(s.code).toBe('FORBIDDEN_PATH');
      expect(s.message).toMatch(/Not allowed to read this spec/);
      const open = errorOf(await handlers.openEvalResults({ file: join(elsewhere, 'r.results.jsonl') }));
      expect(open.code).toBe('FORBIDDEN_PATH');
      expect(errorOf(await handlers.evalRunDetail({ file: '/etc/passwd', runId: 'x' })).code).toBe('FORBIDDEN_PATH');
      expect(errorOf(await handlers.startEval({ spec: SPEC, results: join(elsewhere, 'r.results.jsonl') })).message).toMatch(
        /Not allowed to write results/,
      );
      // Allowed by the policy (under a folder the host was given) but a session, not a results file: never appended to.
      const session = join(folder, 'session.jsonl');
      writeFileSync(session, readFileSync(TRACE));
      expect(errorOf(await handlers.startEval({ spec: SPEC, results: session })).message).toMatch(/is not an eval results file/);
      expect(errorOf(await handlers.startEval({ spec: SPEC, results: join(folder, 'r.txt') })).message).toMatch(/must end with \.jsonl/);
      expect(readdirSync(folder)).toEqual(['session.jsonl']);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('offers a spec and a results file it was started with in the evals, not as sessions to open', async () => {
    const results = join(folder, 'old.results.jsonl');
    writeFileSync(results, '');
    const h = createHandlers({ registry, initialPaths: [SPEC, TRACE, results], rerun: { env: { PALIMPSEST_DATA_DIR: dataDir } } });
    expect(value(await h.initialSessions({})).paths).toEqual([TRACE]);
    const files = value(await h.listEvalFiles({}));
    expect(files.specs.map((s) => [s.name, s.given])).toEqual([['dsh-compaction-recovery', true]]);
    expect(files.results.map((r) => r.path)).toEqual([results]);
    // Without a library, the files it was started with are all it may read.
    expect(value(await h.openEvalResults({ file: results })).lines).toBe(0);
    expect(errorOf(await h.openEvalResults({ file: join(folder, 'other.results.jsonl') })).code).toBe('FORBIDDEN_PATH');
  });
});
