import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type ClientDef, claudeCode } from '../../src/main/fidelity/clients';
import { openCode } from '../../src/main/fidelity/client-opencode';
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

  it('drives a server scenario through the client API, one server for every turn, stopped with SIGTERM', async () => {
    // A stand-in for `opencode serve`: one chat request to the configured provider per call, every
    // call's path and body noted in a storage file, and a note when SIGTERM stops it.
    const SERVER = `
const { createServer } = await import('node:http');
const { mkdirSync, appendFileSync } = await import('node:fs');
const cfg = JSON.parse(process.env.OPENCODE_CONFIG_CONTENT);
const d = process.env.XDG_DATA_HOME + '/opencode/storage';
mkdirSync(d, { recursive: true });
const note = (v) => appendFileSync(d + '/calls.json', JSON.stringify(v) + '\\n');
const srv = createServer(async (req, res) => {
  let body = '';
  for await (const c of req) body += c;
  note({ path: req.url, body: JSON.parse(body) });
  if (req.url === '/session') return res.end(JSON.stringify({ id: 'ses_fake' }));
  const r = await fetch(cfg.provider.mock.options.baseURL + '/chat/completions', {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'mock-small', messages: [{ role: 'user', content: req.url }] }),
  });
  await r.text();
  res.end(req.url.endsWith('/summarize') ? 'true' : '{}');
});
srv.listen(0, '127.0.0.1', () => console.log('opencode server listening on http://127.0.0.1:' + srv.address().port));
process.on('SIGTERM', () => { note({ stopped: true }); process.exit(0); });
`;
    const bin = join(dir, 'fake-server.mjs');
    writeFileSync(bin, `#!/usr/bin/env node\n${SERVER}`, { mode: 0o755 });
    const client: ClientDef = {
      ...openCode,
      version: '0.0.0-test',
      serve: { ...(openCode.serve as NonNullable<ClientDef['serve']>), settleMs: 0 },
    };
    const scenario = Scenario.parse({
      name: 'served',
      client: 'opencode',
      drive: 'server',
      description: 'stand-in server',
      settings: ['-m', 'mock/mock-small'],
      script: { fallback: { content: [{ type: 'text', text: 'ok' }] } },
      turns: [{ prompt: 'hello' }, { prompt: '/compact' }, { prompt: 'again' }],
    });
    const r = await runScenario(scenario, { bin }, { root: join(dir, 'runs'), client });
    expect(r.problems).toEqual([]);
    expect(r.turns.map((t) => [t.argv, t.exitCode])).toEqual([
      [['POST /session', 'POST /session/ses_fake/message'], 0],
      [['POST /session/ses_fake/summarize'], 0],
      [['POST /session/ses_fake/message'], 0],
    ]);
    expect(r.sessionId).toBe('ses_fake');
    expect(r.captured.map((c) => c.answer.label)).toEqual(['fallback', 'fallback', 'fallback']);
    const calls = readFileSync(join(r.home, '.local', 'share', 'opencode', 'storage', 'calls.json'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as unknown);
    const model = { providerID: 'mock', modelID: 'mock-small' };
    expect(calls).toEqual([
      { path: '/session', body: {} },
      { path: '/session/ses_fake/message', body: { model, parts: [{ type: 'text', text: 'hello' }] } },
      { path: '/session/ses_fake/summarize', body: model },
      { path: '/session/ses_fake/message', body: { model, parts: [{ type: 'text', text: 'again' }] } },
      { stopped: true },
    ]);
  });

  it('reports a server that never says where it listens', async () => {
    const bin = join(dir, 'mute-server.mjs');
    writeFileSync(bin, '#!/usr/bin/env node\nconsole.error("no port for you");\nprocess.exit(2);\n', { mode: 0o755 });
    const client: ClientDef = { ...openCode, version: '0.0.0-test' };
    const scenario = Scenario.parse({
      name: 'mute',
      client: 'opencode',
      drive: 'server',
      description: 'x',
      script: {},
      turns: [{ prompt: 'hi' }],
    });
    const r = await runScenario(scenario, { bin }, { root: join(dir, 'runs'), client });
    expect(r.turns).toEqual([]);
    expect(r.problems).toEqual(['the server did not start: no port for you', 'the client wrote no log']);
  });
});
