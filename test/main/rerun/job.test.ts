import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compare } from '../../../src/shared/compare/compare';
import { RunRecord } from '../../../src/shared/rerun/record';
import { runJob } from '../../../src/main/rerun/job';
import { originalSubject, runSubject } from '../../../src/main/rerun/original';
import { readRuns } from '../../../src/main/rerun/sidecar';
import { SessionInspector } from '../../../src/main/session/inspector';
import { loadSession } from '../../../src/main/session/load';

const SESSION = 'fixtures/palimpsest/basic.jsonl';
let dir: string;
let inspector: SessionInspector;
const sha = async (p: string) =>
  createHash('sha256')
    .update(await readFile(p))
    .digest('hex');

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pal-rerun-'));
  inspector = new SessionInspector(await loadSession(SESSION));
});
afterAll(async () => {
  await inspector.session.dispose();
  await rm(dir, { recursive: true, force: true });
});

describe('a re-run job', () => {
  it('re-runs a logged compaction with the mock, appends records to the results file, and never touches the session', async () => {
    const before = await sha(SESSION);
    const runsFile = join(dir, 'a.runs.jsonl');
    const r = await runJob(inspector, {
      sessionPath: SESSION,
      target: { compaction: 'cmp_01' },
      strategy: 'one-shot',
      models: [{ provider: 'mock', model: 'summarizer', params: {}, window: null }],
      window: 2_000,
      maxOutput: 200,
      repeat: 2,
      runsFile,
    });
    if (!r.ok) throw new Error(r.error);
    expect(r.runs).toHaveLength(2);
    const run = r.runs[0] as RunRecord;
    expect(run.outcome).toBe('committed');
    expect(run.mock).toBe(true);
    expect(run.summary).toContain('[MOCK SUMMARY — not a model]');
    expect(run.calls).toHaveLength(1);
    // The exact body sent is recorded, and it carries the source's text.
    expect(run.calls[0]?.sent[0]?.body).toContain('paginate');
    expect(run.batchId).toBe(r.runs[1]?.batchId);
    expect(run.tokens.after).toBeLessThan(2_000);
    const back = await readRuns(runsFile);
    expect(back.problems).toEqual([]);
    expect(back.runs.map((x) => x.runId)).toEqual(r.runs.map((x) => x.runId));
    expect(back.runs.every((x) => RunRecord.safeParse(x).success)).toBe(true);
    expect(await sha(SESSION)).toBe(before);
  });

  it('records a provider fault and our retry, then compares the original with the re-run', async () => {
    const runsFile = join(dir, 'b.runs.jsonl');
    const r = await runJob(inspector, {
      sessionPath: SESSION,
      target: { compaction: 'cmp_01' },
      strategy: 'one-shot',
      models: [{ provider: 'mock', model: 'm', params: {}, window: null }],
      window: 2_000,
      maxOutput: 200,
      runsFile,
      mock: { mockScript: { steps: [{ fault: { kind: 'http', status: 500 } }] } },
    });
    if (!r.ok) throw new Error(r.error);
    const call = r.runs[0]?.calls[0];
    expect(call?.attempts).toBe(2);
    expect(call?.sent).toHaveLength(2);
    expect(r.runs[0]?.outcome).toBe('committed');
    const original = await originalSubject(inspector, 'cmp_01', inspector.defaultBranch);
    expect(original?.summary).toBeTruthy();
    const c = compare(r.source.view.items, [original!, runSubject(r.runs[0]!)]);
    expect(c.rows).toHaveLength(2);
    expect(c.rows[1]?.diff).not.toBeNull();
    expect(c.anchors.paths).toContain('src/paginate.ts');
  });

  it('runs model-free baselines without any model, and refuses an unknown strategy or target with a sentence', async () => {
    const runsFile = join(dir, 'c.runs.jsonl');
    const ok = await runJob(inspector, {
      sessionPath: SESSION,
      target: { request: 5 },
      strategy: 'truncate',
      models: [],
      window: 1_000,
      runsFile,
    });
    if (!ok.ok) throw new Error(ok.error);
    expect(ok.runs[0]?.models).toEqual([]);
    expect(ok.runs[0]?.calls).toEqual([]);
    const bad = await runJob(inspector, { sessionPath: SESSION, target: { request: 5 }, strategy: 'nope', models: [], runsFile });
    expect(bad).toEqual({ ok: false, error: expect.stringContaining('Unknown strategy "nope"') });
    const noTarget = await runJob(inspector, {
      sessionPath: SESSION,
      target: { compaction: 'zzz' },
      strategy: 'truncate',
      models: [],
      runsFile,
    });
    expect(noTarget).toEqual({ ok: false, error: expect.stringContaining('No compaction "zzz"') });
  });

  it('stops on cancellation without recording a half run as committed', async () => {
    const ac = new AbortController();
    ac.abort();
    const r = await runJob(inspector, {
      sessionPath: SESSION,
      target: { compaction: 'cmp_01' },
      strategy: 'one-shot',
      models: [{ provider: 'mock', model: 'm', params: {}, window: null }],
      window: 2_000,
      runsFile: join(dir, 'd.runs.jsonl'),
      signal: ac.signal,
    });
    if (!r.ok) throw new Error(r.error);
    expect(r.runs).toEqual([]);
  });
});

describe('cosh regression: streamed summary, length finish, repeat', () => {
  it('one request per compaction, the connector output ceiling kept as is, the failure recorded, no loop', async () => {
    // The GLM report: a 2,000-token ceiling on one-shot summaries and a fresh retry budget after every
    // tool dispatch gave three failed compactions of three requests each. Here: one summarize call,
    // one HTTP request, max_tokens exactly the connector's 2,000, finish `length` rejected, source kept.
    const runsFile = join(dir, 'regression.runs.jsonl');
    const r = await runJob(inspector, {
      sessionPath: SESSION,
      target: { compaction: 'cmp_01' },
      strategy: 'layered',
      models: [{ provider: 'mock', model: 'glm', params: { maxOutput: 2_000 }, window: null }],
      window: 2_000,
      maxOutput: 100,
      runsFile,
      mock: {
        mockScript: {
          steps: [
            {
              times: 0,
              reply: { content: [{ type: 'text', text: '## Objective\n## Objective\n## Objective\ncut mid-sent' }], stop: 'length' },
            },
          ],
        },
      },
    });
    if (!r.ok) throw new Error(r.error);
    const run = r.runs[0] as RunRecord;
    expect(run.outcome).toBe('failed');
    expect(run.view).toBeNull();
    expect(run.calls).toHaveLength(1);
    expect(run.calls[0]?.attempts).toBe(1);
    expect(run.calls[0]?.finish?.reason).toBe('length');
    expect(run.calls[0]?.error?.kind).toBe('incomplete');
    expect(run.calls[0]?.usage).not.toBeNull();
    const sent = JSON.parse(run.calls[0]?.sent[0]?.body ?? '{}') as { max_tokens?: number };
    // cosh: a one-shot summary keeps the connector's own output configuration.
    expect(sent.max_tokens).toBe(2_000);
    expect(run.calls[0]?.sent).toHaveLength(1);
    expect(run.totals.requests).toBe(1);
  });
});
