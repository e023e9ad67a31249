import { readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Run, runBuilt } from './run-built';

/*
 * `--capture` on rerun, runs, compare and facts, run as a user runs them: Claude Code's /compact
 * whose summarizer got HTTP 500 twice. Request 2 of the joined list is the first failed attempt,
 * which the log does not hold: its request 2 is the agent's next turn.
 */

const RUN = 'fixtures/fidelity/recorded/claude-code-2.1.332/compact-http-500';
const PROJECTS = join(RUN, 'projects');
const FOLDER = readdirSync(PROJECTS)[0] ?? '';
const LOG = join(PROJECTS, FOLDER, readdirSync(join(PROJECTS, FOLDER)).find((f) => f.endsWith('.jsonl')) ?? '');
const CAPTURE = ['capture-1.jsonl', 'capture-2.jsonl', 'capture-3.jsonl'].flatMap((c) => ['--capture', join(RUN, c)]);

let data = '';

/** The built command, with its data directory in a temporary folder and no provider key. */
const run = (...args: string[]): Promise<Run> =>
  runBuilt(args, 120_000, { ...process.env, PALIMPSEST_DATA_DIR: data, ANTHROPIC_API_KEY: '' });

interface RunJson {
  runs: {
    runId: string;
    captures: { path: string; fingerprint: string }[];
    target: unknown;
    outcome: string;
    tokens: { before: number };
  }[];
  unknowns: string[];
}

beforeAll(async () => {
  data = await mkdtemp(join(tmpdir(), 'palimpsest-rerun-capture-'));
});
afterAll(async () => {
  await rm(data, { recursive: true, force: true });
});

describe('rerun, runs, compare and facts with --capture', () => {
  let joined: RunJson['runs'][number];
  let logOnly: RunJson['runs'][number];

  it('re-runs a failed summarizer attempt only the wire has, from its body as sent', async () => {
    const inspect = JSON.parse((await run('inspect', LOG, '--json', ...CAPTURE)).stdout) as {
      requests: { index: number; source: string; purpose: string; status: number | null }[];
    };
    expect(inspect.requests[2]).toMatchObject({ source: 'wire', purpose: 'summarizer', status: 500 });
    const view = JSON.parse((await run('view', LOG, '--request', '2', '--json', ...CAPTURE)).stdout) as { items: unknown[] };

    const a = await run('rerun', LOG, '--request', '2', '--strategy', 'extractive', '--window', '3000', '--json', ...CAPTURE);
    expect(a.code).toBe(0);
    const ja = JSON.parse(a.stdout) as RunJson;
    joined = ja.runs[0] as RunJson['runs'][number];
    expect(joined.captures.map((c) => c.path.split('/').pop())).toEqual(['capture-1.jsonl', 'capture-2.jsonl', 'capture-3.jsonl']);
    expect(joined.target).toEqual({ request: 2 });
    // The wire holds the system prompt and tools: nothing of the source is unknown.
    expect(ja.unknowns).toEqual([]);

    const b = await run('rerun', LOG, '--request', '2', '--strategy', 'extractive', '--window', '3000', '--json');
    expect(b.code).toBe(0);
    logOnly = (JSON.parse(b.stdout) as RunJson).runs[0] as RunJson['runs'][number];
    expect(logOnly.captures).toEqual([]);
    // Two different requests: the summarizer's input (the conversation and its instructions) is
    // not the agent's turn after the compaction.
    expect(joined.tokens.before).not.toBe(logOnly.tokens.before);
    expect(view.items.length).toBeGreaterThan(0);
  });

  it('lists every run, marking those joined with a capture; --capture lists those alone', async () => {
    const all = await run('runs', LOG);
    expect(all.code).toBe(0);
    const lines = all.stdout.split('\n').filter((l) => l.includes('request 2'));
    expect(lines).toHaveLength(2);
    expect(lines.filter((l) => l.includes('[joined with capture]'))).toHaveLength(1);
    const only = JSON.parse((await run('runs', LOG, '--json', ...CAPTURE)).stdout) as RunJson;
    expect(only.runs.map((r) => r.runId)).toEqual([joined.runId]);
  });

  it('compares a request with the runs made in the same list only', async () => {
    const withCapture = JSON.parse((await run('compare', LOG, '--request', '2', '--json', ...CAPTURE)).stdout) as {
      comparison: { rows: { subject: { tokensBefore: number } }[] };
    };
    expect(withCapture.comparison.rows.map((r) => r.subject.tokensBefore)).toEqual([joined.tokens.before]);
    const without = JSON.parse((await run('compare', LOG, '--request', '2', '--json')).stdout) as typeof withCapture;
    expect(without.comparison.rows.map((r) => r.subject.tokensBefore)).toEqual([logOnly.tokens.before]);
  });

  it('re-runs a compaction under the envelope the wire carried (Codex logs no tool schemas)', async () => {
    const codex = 'fixtures/fidelity/recorded/codex-0.171.0/compact-http-500';
    const day = join(codex, 'sessions/2026/12/02');
    const rollout = join(day, readdirSync(day).find((f) => f.startsWith('rollout-')) ?? '');
    const captures = ['capture-1.jsonl', 'capture-2.jsonl', 'capture-3.jsonl'].flatMap((c) => ['--capture', join(codex, c)]);
    const args = ['rerun', rollout, '--compaction', 'cmp:L28', '--strategy', 'extractive', '--window', '1000', '--json'];
    const logOnly = await run(...args);
    expect(logOnly.code).toBe(0);
    const lj = JSON.parse(logOnly.stdout) as RunJson & { runs: { view: { tools: unknown[] | null } }[] };
    expect(lj.unknowns).toEqual(['tool schemas: the log does not record them']);
    expect(lj.runs[0]?.view.tools).toBeNull();
    const joinedRun = await run(...args, ...captures);
    expect(joinedRun.code).toBe(0);
    const jj = JSON.parse(joinedRun.stdout) as typeof lj;
    expect(jj.unknowns).toEqual([]);
    expect(jj.runs[0]?.view.tools).toHaveLength(10);
  });

  it('drafts facts of a compaction; a joined request index is refused, since evals read the log alone', async () => {
    const id = (JSON.parse((await run('inspect', LOG, '--json')).stdout) as { compactions: { id: string }[] }).compactions[0]?.id ?? '';
    const ok = await run('facts', 'draft', LOG, '--compaction', id, ...CAPTURE);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('confirmed: false');
    const refused = await run('facts', 'draft', LOG, '--request', '2', ...CAPTURE);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('drop --capture');
  });

  it('joins the default branch only, and names a capture it cannot read', async () => {
    const branch = await run('rerun', LOG, '--request', '2', '--strategy', 'extractive', '--branch', 'nope', ...CAPTURE);
    expect(branch.code).toBe(2);
    const commands = [
      ['compare', LOG, '--request', '2'],
      ['runs', LOG],
      ['rerun', LOG, '--request', '2', '--strategy', 'extractive'],
    ];
    for (const command of commands) {
      const missing = await run(...command, '--capture', join(RUN, 'no-such.jsonl'));
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(/no-such\.jsonl.*(does not exist|no such file)/);
    }
  });
});
