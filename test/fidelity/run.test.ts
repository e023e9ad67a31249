import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type ClientDef, claudeCode } from '../../src/main/fidelity/clients';
import { copyRun, runScenario } from '../../src/main/fidelity/run';
import { Scenario } from '../../src/main/fidelity/scenario';

/*
 * The runner with a stand-in client: a small Node script that, like `claude -p`, sends one
 * streaming Messages request to ANTHROPIC_BASE_URL, writes a transcript under
 * $HOME/.claude/projects and prints a result object with the session id.
 */

const dir = mkdtempSync(join(tmpdir(), 'palimpsest-fidelity-run-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FAKE = `
const [,, , prompt, ...rest] = process.argv;
const resume = rest.includes('--resume') ? rest[rest.indexOf('--resume') + 1] : null;
const session = resume ?? 'fake-session-1';
const res = await fetch(process.env.ANTHROPIC_BASE_URL + '/v1/messages?beta=true', {
  method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': process.env.ANTHROPIC_API_KEY },
  body: JSON.stringify({ model: 'fake', stream: true, max_tokens: 10, messages: [{ role: 'user', content: prompt }] }),
});
const text = await res.text();
const { mkdirSync, appendFileSync } = await import('node:fs');
const d = process.env.HOME + '/.claude/projects/-work';
mkdirSync(d, { recursive: true });
appendFileSync(d + '/' + session + '.jsonl', JSON.stringify({ type: 'user', prompt, status: res.status, sse: text.length }) + '\\n');
if (prompt === 'fail') process.exit(3);
console.log(JSON.stringify({ type: 'result', session_id: session }));
`;

describe('fidelity runner', () => {
  it('runs the turns against the mock, resumes, records the requests and collects the logs', async () => {
    const bin = join(dir, 'fake-client.mjs');
    writeFileSync(bin, `#!/usr/bin/env node\n${FAKE}`, { mode: 0o755 });
    const client: ClientDef = { ...claudeCode, version: '0.0.0-test' };
    const scenario = Scenario.parse({
      name: 'fake',
      client: 'claude-code',
      description: 'stand-in client',
      script: {
        steps: [{ label: 'one', reply: { content: [{ type: 'text', text: 'hi' }] } }],
        fallback: { content: [{ type: 'text', text: 'ok' }] },
      },
      turns: [{ prompt: 'hello' }, { prompt: 'again' }, { prompt: 'fail', expect: 'fail' }],
    });
    const r = await runScenario(scenario, { bin }, { root: join(dir, 'runs'), client });
    expect(r.problems).toEqual([]);
    expect(r.turns.map((t) => t.exitCode)).toEqual([0, 0, 3]);
    expect(r.turns[1]?.argv).toContain('--resume');
    expect(r.sessionId).toBe('fake-session-1');
    expect(r.captured.map((c) => c.answer.label)).toEqual(['one', 'fallback', 'fallback']);
    expect(r.captured.every((c) => c.redacted.includes('x-api-key'))).toBe(true);
    expect(r.logs).toHaveLength(1);
    expect(r.mainLog).toMatch(/fake-session-1\.jsonl$/);
    expect(
      readFileSync(r.mainLog as string, 'utf8')
        .trim()
        .split('\n'),
    ).toHaveLength(3);

    const out = copyRun(r, join(dir, 'fixtures'));
    expect(out).toBe(join(dir, 'fixtures', 'logs', 'claude-code-0.0.0-test', 'fake'));
    expect(existsSync(join(out, 'projects', '-work', 'fake-session-1.jsonl'))).toBe(true);
    expect(readFileSync(join(out, 'captured.jsonl'), 'utf8').trim().split('\n')).toHaveLength(3);
    const saved = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')) as { mainLog: string; turns: unknown[] };
    expect(saved.mainLog).toBe('projects/-work/fake-session-1.jsonl');
    expect(saved.turns).toHaveLength(3);
  });

  it('reports a turn that fails unexpectedly and one that outlives its time limit', async () => {
    const bin = join(dir, 'slow-client.mjs');
    writeFileSync(
      bin,
      '#!/usr/bin/env node\nif (process.argv[3] === "slow") await new Promise((r) => setTimeout(r, 5000));\nprocess.exit(process.argv[3] === "bad" ? 1 : 0);\n',
      { mode: 0o755 },
    );
    const scenario = Scenario.parse({
      name: 'slow',
      client: 'claude-code',
      description: 'x',
      script: {},
      turnTimeoutMs: 1000,
      turns: [
        { prompt: 'bad', resume: false },
        { prompt: 'slow', resume: false },
      ],
    });
    const r = await runScenario(scenario, { bin }, { root: join(dir, 'runs') });
    expect(r.turns.map((t) => t.timedOut)).toEqual([false, true]);
    expect(r.problems).toEqual([expect.stringMatching(/^turn 1 exited 1/), 'turn 2 timed out after 1000 ms', 'the client wrote no log']);
  });
});
