import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHandlers, type Handlers, type HandlerTable } from '../../../src/main/api/handlers';
import { SessionRegistry } from '../../../src/main/api/sessions';
import { defaultRunsFile } from '../../../src/main/rerun/sidecar';
import { CONTRACT, type ApiResult, type ProgressEvent, type RerunJob, type RerunProgressEvent } from '../../../src/shared/api/contract';
import { value, errorOf } from './results';

const SAMPLE = 'fixtures/palimpsest/basic.jsonl';
const KEY = 'sk-test-0123456789abcdefWXYZ';

describe('re-run handlers', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let registry: SessionRegistry;
  let handlers: HandlerTable;
  let progress: ProgressEvent[];

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'palimpsest-rerun-'));
    env = { PALIMPSEST_DATA_DIR: dataDir, OPENAI_API_KEY: KEY };
    registry = new SessionRegistry({ allow: 'any' });
    progress = [];
    handlers = createHandlers({ registry, initialPaths: [SAMPLE], onProgress: (e) => progress.push(e), rerun: { env } });
  });
  afterEach(() => {
    registry.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const open = async () => value(await handlers.openSession({ path: SAMPLE })).sessionId;

  /** Watches a job to its end, as the renderer does, collecting every event. */
  async function finish(jobId: string): Promise<{ job: RerunJob; events: RerunProgressEvent[] }> {
    const events: RerunProgressEvent[] = [];
    let after = 0;
    for (;;) {
      const w = value(await handlers.watchRerun({ jobId, after, waitMs: 5000 }));
      events.push(...w.events);
      after = w.next;
      if (w.job.state !== 'running' && w.events.length === 0) return { job: w.job, events };
    }
  }

  /** Waits until the job's summary request is in flight. */
  async function summarizing(jobId: string): Promise<void> {
    let after = 0;
    for (let seen = false; !seen;) {
      const w = value(await handlers.watchRerun({ jobId, after, waitMs: 5000 }));
      after = w.next;
      seen = w.events.some((e) => e.stage?.stage === 'summarize');
    }
  }

  it('lists the strategies with the system they follow and whether they need a model', async () => {
    const { strategies } = value(await handlers.listStrategies({}));
    expect(strategies.map((s) => s.id)).toEqual([
      'one-shot',
      'layered',
      'dsh-basic',
      'preemptive',
      'truncate',
      'clear-tools',
      'extractive',
    ]);
    expect(strategies.find((s) => s.id === 'truncate')).toMatchObject({ source: 'baseline', needsModel: false });
    expect(strategies.find((s) => s.id === 'one-shot')).toMatchObject({ source: '000', needsModel: true });
  });

  it('runs truncate on cmp_01: progress events, a run in the results file under the data dir, listRuns reads it back', async () => {
    const sessionId = await open();
    const job = value(await handlers.startRerun({ sessionId, target: { compaction: 'cmp_01' }, strategy: 'truncate', window: 2000 }));
    expect(job).toMatchObject({ state: 'running', strategy: 'truncate', models: [], repeat: 1 });
    expect(job.file?.startsWith(join(dataDir, 'runs'))).toBe(true);
    const { job: done, events } = await finish(job.jobId);
    expect(done.state).toBe('done');
    expect(done.runs).toHaveLength(1);
    expect(done.runs[0]).toMatchObject({ strategy: 'truncate', outcome: 'fallback', mock: false, window: 2000, stale: false });
    expect(done.runs[0]?.tokens.after).toBeLessThan(done.runs[0]?.tokens.before ?? 0);
    // Numbered events: started, the run, done; the host's progress channel got the same ones.
    expect(events.map((e) => e.index)).toEqual(events.map((_, i) => i));
    expect(events.at(0)?.phase).toBe('running');
    expect(events.some((e) => e.run?.runId === done.runs[0]?.runId)).toBe(true);
    expect(events.at(-1)?.phase).toBe('done');
    expect(progress.filter((p) => p.operation === 'rerun')).toEqual(events);
    for (const e of events) expect(CONTRACT.watchRerun.output.shape.events.element.parse(e)).toEqual(e);

    const runs = value(await handlers.listRuns({ sessionId }));
    expect(runs.file).toBe(await defaultRunsFile(SAMPLE, env));
    expect(runs.runs.map((r) => r.runId)).toEqual([done.runs[0]?.runId]);
    expect(runs.problems).toEqual([]);
  });

  it('runs one-shot with the mock: the run says mock, its progress has the summarize stage', async () => {
    const sessionId = await open();
    const job = value(
      await handlers.startRerun({
        sessionId,
        target: { compaction: 'cmp_01' },
        strategy: 'one-shot',
        models: ['mock:summarizer'],
        window: 2000,
        repeat: 2,
      }),
    );
    const { job: done, events } = await finish(job.jobId);
    expect(done.state).toBe('done');
    expect(done.runs.map((r) => [r.outcome, r.mock, r.models, r.repeat])).toEqual([
      ['committed', true, ['mock:summarizer'], { index: 0, of: 2 }],
      ['committed', true, ['mock:summarizer'], { index: 1, of: 2 }],
    ]);
    const stages = events.flatMap((e) =>
      e.stage ? [`${e.stage.stage} ${e.stage.done}/${e.stage.total} #${e.stage.repeat.index + 1}/${e.stage.repeat.of}`] : [],
    );
    expect(stages).toEqual(['summarize 0/1 #1/2', 'summarize 1/1 #1/2', 'summarize 0/1 #2/2', 'summarize 1/1 #2/2']);
    expect(done.runs[0]?.totals.requests).toBe(1);
  });

  it('cancels a slow mock run: the job ends cancelled and the run in flight is recorded as cancelled', async () => {
    const sessionId = await open();
    const job = value(
      await handlers.startRerun({
        sessionId,
        target: { compaction: 'cmp_01' },
        strategy: 'one-shot',
        models: ['mock:slow'],
        window: 2000,
        mock: { latencyMs: 30_000 },
      }),
    );
    await summarizing(job.jobId);
    const t0 = Date.now();
    const c = value(await handlers.cancelRerun({ jobId: job.jobId }));
    expect(c.cancelled).toBe(true);
    const { job: done } = await finish(job.jobId);
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(done.state).toBe('cancelled');
    expect(done.runs.map((r) => r.outcome)).toEqual(['cancelled']);
    expect(value(await handlers.cancelRerun({ jobId: job.jobId })).cancelled).toBe(false);
  });

  it('disposing the handler table stops its running jobs: the run in flight is recorded as cancelled, the job is gone', async () => {
    const sessionId = await open();
    const job = value(
      await handlers.startRerun({
        sessionId,
        target: { compaction: 'cmp_01' },
        strategy: 'one-shot',
        models: ['mock:slow'],
        window: 2000,
        mock: { latencyMs: 30_000 },
      }),
    );
    await summarizing(job.jobId);
    handlers[Symbol.dispose]();
    expect(errorOf(await handlers.watchRerun({ jobId: job.jobId, after: 0, waitMs: 0 })).code).toBe('NO_JOB');
    // The 30-second request was abandoned at once, and its record written.
    const t0 = Date.now();
    let outcomes: string[] = [];
    while (outcomes.length === 0 && Date.now() - t0 < 5000) {
      outcomes = value(await handlers.listRuns({ sessionId })).runs.map((r) => r.outcome);
      if (outcomes.length === 0) await new Promise((r) => setTimeout(r, 50));
    }
    expect(outcomes).toEqual(['cancelled']);
  });

  it('keeps the summarization chain in settings: read, replaced whole, cleared; a bad model or a hand-edited file is said, not trimmed', async () => {
    const empty = value(await handlers.rerunSettings({}));
    expect(empty).toEqual({ file: join(dataDir, 'settings.json'), chain: [], problem: null });
    const chain = [
      {
        provider: 'anthropic' as const,
        model: 'claude-haiku-4-5',
        params: { maxOutput: 3000, reasoning: 'low' as const },
        prices: { input: 1, output: 5 },
      },
      {
        provider: 'openai' as const,
        model: 'llama3.1:8b',
        baseUrl: 'http://127.0.0.1:11434/v1',
        window: 131072,
        params: { temperature: 0.2 },
      },
    ];
    expect(value(await handlers.setSummarizationChain({ models: chain })).chain).toEqual(chain);
    expect(value(await handlers.rerunSettings({})).chain).toEqual(chain);
    expect(
      errorOf(await handlers.setSummarizationChain({ models: [{ provider: 'openai', model: 'm', params: { temperature: 5 } }] })).code,
    ).toBe('BAD_INPUT');
    expect(value(await handlers.rerunSettings({})).chain).toEqual(chain);
    // A hand edit the API could not carry back (a key variable not named *_API_KEY) is a problem, not a shorter chain.
    const doc = JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8'));
    doc.summarizationChain[1].keyEnv = 'HOME';
    writeFileSync(join(dataDir, 'settings.json'), JSON.stringify(doc));
    const odd = value(await handlers.rerunSettings({}));
    expect(odd.chain).toEqual([]);
    expect(odd.problem).toContain('model 2 (openai:llama3.1:8b)');
    expect(value(await handlers.setSummarizationChain({ models: [] }))).toMatchObject({ chain: [], problem: null });
  });

  it('passes strategy options through: the job, its run and listRuns carry them; a strategy rejects a key it does not know', async () => {
    const sessionId = await open();
    const job = value(
      await handlers.startRerun({
        sessionId,
        target: { compaction: 'cmp_01' },
        strategy: 'clear-tools',
        options: { keepLast: 1 },
        window: 2000,
      }),
    );
    expect(job.options).toEqual({ keepLast: 1 });
    const { job: done } = await finish(job.jobId);
    expect(done.runs.map((r) => [r.outcome, r.options])).toEqual([['committed', { keepLast: 1 }]]);
    expect(value(await handlers.listRuns({ sessionId })).runs.map((r) => r.options)).toEqual([{ keepLast: 1 }]);
    // A different keepLast changes what survives: the option reached the strategy.
    const three = (
      await finish(
        value(await handlers.startRerun({ sessionId, target: { compaction: 'cmp_01' }, strategy: 'clear-tools', window: 2000 })).jobId,
      )
    ).job;
    expect(three.runs[0]?.options).toEqual({});
    expect(three.runs[0]?.tokens.after).toBeGreaterThan(done.runs[0]?.tokens.after ?? Infinity);

    const bad = (
      await finish(
        value(
          await handlers.startRerun({
            sessionId,
            target: { compaction: 'cmp_01' },
            strategy: 'clear-tools',
            options: { keepLast: 1, keepFirst: 2 },
            window: 2000,
          }),
        ).jobId,
      )
    ).job;
    expect(bad.runs[0]?.outcome).toBe('failed');
    expect(bad.runs[0]?.error).toMatch(/invalid options: .*Unrecognized key: "keepFirst"/);
  });

  it('compareRuns puts the original compaction first, then the runs, with recall, sections and the summary diff', async () => {
    const sessionId = await open();
    const ex = value(await handlers.startRerun({ sessionId, target: { compaction: 'cmp_01' }, strategy: 'extractive', window: 2000 }));
    const runId = (await finish(ex.jobId)).job.runs[0]?.runId ?? '';
    const r = value(await handlers.compareRuns({ sessionId, target: { compaction: 'cmp_01' }, runIds: [runId, 'nope'] }));
    expect(r.comparison.rows.map((x) => x.subject.id)).toEqual(['original', runId]);
    expect(r.missing).toEqual(['nope']);
    expect(r.note).toBeNull();
    const [original, run] = r.comparison.rows;
    expect(original?.subject.label).toMatch(/^original/);
    expect(original?.diff).toBeNull();
    expect(run?.diff?.some((p) => p.op === 'added')).toBe(true);
    expect(run?.diff?.some((p) => p.op === 'removed')).toBe(true);
    // The compare view measures the nine categories of compaction forensics (it measured four kinds before).
    expect(run?.survival.map((s) => s.kind)).toEqual([
      'paths',
      'commands',
      'identifiers',
      'urls',
      'errors',
      'numbers',
      'constraints',
      'tasks',
      'decisions',
    ]);
    expect(r.comparison.anchors.paths).toContain('src/paginate.ts');
    expect(run?.sections).toHaveLength(10);
    expect(run?.subject.viewChars).toBeGreaterThan(0);
    expect(JSON.stringify(r)).not.toContain('"viewText"');
    // A request target has no original: with no run of it there is nothing to compare.
    const none = value(await handlers.compareRuns({ sessionId, target: { request: 0 } }));
    expect(none.comparison.rows).toEqual([]);
    expect(none.note).toMatch(/Nothing to compare yet/);
  });

  it('listRuns marks runs of an older version of the session stale and reports bad lines', async () => {
    const sessionId = await open();
    const j = value(await handlers.startRerun({ sessionId, target: { compaction: 'cmp_01' }, strategy: 'truncate', window: 2000 }));
    await finish(j.jobId);
    const file = await defaultRunsFile(SAMPLE, env);
    const [line] = readFileSync(file, 'utf8').split('\n');
    const old = JSON.parse(line ?? '{}') as { runId: string; source: { fingerprint: string } };
    appendFileSync(
      file,
      `${JSON.stringify({ ...old, runId: 'old-run', source: { ...old.source, fingerprint: 'f'.repeat(32) } })}\nnot json\n`,
    );
    const runs = value(await handlers.listRuns({ sessionId }));
    expect(runs.runs.map((r) => [r.runId === old.runId ? 'fresh' : r.runId, r.stale])).toEqual([
      ['fresh', false],
      ['old-run', true],
    ]);
    expect(runs.problems).toEqual([{ line: 3, message: expect.stringMatching(/^not JSON/) }]);
  });

  it('providerKeys says set / source / last4 and never the key, even with OPENAI_API_KEY in its env', async () => {
    const r = value(
      await handlers.providerKeys({
        models: [
          'openai:gpt-4.1',
          'mock:summarizer',
          { provider: 'openai', model: 'llama3', baseUrl: 'http://127.0.0.1:11434/v1' },
          'nope:x',
        ],
      }),
    );
    expect(r.providers.find((p) => p.provider === 'openai')).toEqual({
      provider: 'openai',
      env: ['OPENAI_API_KEY'],
      set: true,
      source: 'env',
      last4: 'WXYZ',
    });
    expect(r.providers.find((p) => p.provider === 'anthropic')).toMatchObject({ set: false, source: null, last4: null });
    expect(r.models.map((m) => [m.label, m.needsKey, m.set])).toEqual([
      ['openai:gpt-4.1', true, true],
      ['mock:summarizer', false, false],
      ['openai:llama3', false, false],
      ['nope:x', false, false],
    ]);
    expect(r.models[3]?.error).toMatch(/Unknown provider/);
    const text = JSON.stringify(r);
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(KEY.slice(0, 12));
  });

  it('rejects bad payloads with BAD_INPUT and unknown things with their own codes', async () => {
    const sessionId = await open();
    const target = { compaction: 'cmp_01' };
    const bad: [string, unknown][] = [
      ['startRerun', { sessionId, target, strategy: 'truncate', repeat: 0 }],
      ['startRerun', { sessionId, target: { compaction: 'cmp_01', request: 1 }, strategy: 'truncate' }],
      ['startRerun', { sessionId, target, strategy: 'truncate', window: -5 }],
      [
        'startRerun',
        {
          sessionId,
          target,
          strategy: 'one-shot',
          models: [{ provider: 'openai', model: 'x', keyEnv: 'AWS_SECRET_ACCESS_KEY', baseUrl: 'http://evil.example' }],
        },
      ],
      [
        'startRerun',
        { sessionId, target, strategy: 'one-shot', models: [{ provider: 'openai', model: 'x', baseUrl: 'file:///etc/passwd' }] },
      ],
      ['startRerun', { sessionId, target, strategy: 'nope' }],
      ['startRerun', { sessionId, target: { compaction: 'cmp_99' }, strategy: 'truncate' }],
      ['startRerun', { sessionId, target, strategy: 'one-shot', models: ['nope:x'] }],
      ['watchRerun', { jobId: 'j', after: -1 }],
      ['watchRerun', { jobId: 'j', after: 0, waitMs: 600_000 }],
      ['compareRuns', { sessionId, target: 'cmp_01' }],
      ['providerKeys', { models: 'openai:gpt-4.1' }],
    ];
    for (const [m, input] of bad) {
      const r = await (handlers[m as keyof Handlers] as (i: unknown) => Promise<ApiResult<unknown>>)(input);
      expect(errorOf(r).code, `${m} ${JSON.stringify(input)}`).toBe('BAD_INPUT');
    }
    expect(errorOf(await handlers.startRerun({ sessionId, target: { request: 99 }, strategy: 'truncate' })).code).toBe('NO_REQUEST');
    expect(errorOf(await handlers.startRerun({ sessionId, target, strategy: 'truncate', branch: 'nope' })).code).toBe('NO_BRANCH');
    expect(errorOf(await handlers.startRerun({ sessionId: 'gone', target, strategy: 'truncate' })).code).toBe('NO_SESSION');
    expect(errorOf(await handlers.cancelRerun({ jobId: 'nope' })).code).toBe('NO_JOB');
    expect(errorOf(await handlers.watchRerun({ jobId: 'nope', after: 0 })).code).toBe('NO_JOB');
  });

  it("an empty chain uses the session's own model; without its key the run fails with a sentence and nothing is sent", async () => {
    const sessionId = await open();
    const job = value(await handlers.startRerun({ sessionId, target: { compaction: 'cmp_01' }, strategy: 'one-shot', window: 2000 }));
    const { job: done } = await finish(job.jobId);
    expect(done.state).toBe('done');
    expect(done.models).toEqual([]);
    expect(done.runs[0]).toMatchObject({ outcome: 'failed', models: ['anthropic:claude-sonnet-4-5'], mock: false });
    expect(done.runs[0]?.error).toMatch(/No API key for anthropic:claude-sonnet-4-5: set ANTHROPIC_API_KEY/);
    expect(done.runs[0]?.totals.requests).toBe(0);
  });

  it('closing the session stops and forgets its jobs', async () => {
    const sessionId = await open();
    const job = value(
      await handlers.startRerun({
        sessionId,
        target: { compaction: 'cmp_01' },
        strategy: 'one-shot',
        models: ['mock:slow'],
        window: 2000,
        mock: { latencyMs: 30_000 },
      }),
    );
    expect(value(await handlers.listRerunJobs({ sessionId })).jobs.map((j) => j.jobId)).toEqual([job.jobId]);
    const waiting = handlers.watchRerun({ jobId: job.jobId, after: 99, waitMs: 20_000 });
    const t0 = Date.now();
    value(await handlers.closeSession({ sessionId }));
    // The watcher is released at once, with the job as it was.
    expect(value(await waiting).job.jobId).toBe(job.jobId);
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(errorOf(await handlers.watchRerun({ jobId: job.jobId, after: 0 })).code).toBe('NO_JOB');
  });
});
