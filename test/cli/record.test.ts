import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CaptureLine } from '../../src/main/capture/format';
import { type MockProvider, startMockProvider } from '../../src/main/mock';
import { BIN, type Run } from './run-built';

/* `palimpsest record`, built, as a user runs it: a command recorded through the proxy, and --listen. */

const KEY = 'sk-ant-CLI-SECRET-KEY-9876543210';
let mock: MockProvider;
let dir = '';

beforeAll(async () => {
  mock = await startMockProvider({ script: { steps: [], fallback: { content: [{ type: 'text', text: 'recorded answer' }] } } });
  dir = mkdtempSync(join(tmpdir(), 'palimpsest-record-cli-'));
});
afterAll(() => mock.dispose());

function run(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { timeout: 30_000, killSignal: 'SIGKILL', env: { ...process.env, PALIMPSEST_DATA_DIR: join(dir, 'data'), ...env } },
      (err, stdout, stderr) => {
        const code = err && typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : err ? -1 : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** A child that asks the model through ANTHROPIC_BASE_URL, prints the status and answer, and exits 3. */
const CLIENT = `
const r = await fetch(process.env.ANTHROPIC_BASE_URL + '/v1/messages', {
  method: 'POST',
  headers: { 'content-type': 'application/json', 'x-api-key': process.env.TEST_KEY, 'anthropic-version': '2023-06-01' },
  body: JSON.stringify({ model: 'claude-test', max_tokens: 50, messages: [{ role: 'user', content: 'hello' }] }),
});
const j = await r.json();
console.log(r.status, j.content[0].text);
process.exit(3);
`;

const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => CaptureLine.parse(JSON.parse(l)));

describe('palimpsest record', () => {
  it("records a command's requests, passes its exit code, and never writes the key", async () => {
    const out = join(dir, 'a.capture.jsonl');
    const r = await run(['record', '--out', out, '--upstream', mock.url, '--', process.execPath, '--input-type=module', '-e', CLIENT], {
      TEST_KEY: KEY,
    });
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('200 recorded answer\n');
    expect(r.stderr).toContain(out);
    expect(r.stderr).toMatch(
      /model_providers\.palimpsest=\{name="palimpsest",base_url="http:\/\/127\.0\.0\.1:\d+\/openai\/v1",wire_api="responses",env_key="OPENAI_API_KEY"\}' -c model_provider=palimpsest/,
    );
    expect(r.stderr).toMatch(/^record: 1 request, 0 errors, 0\.0 MB ↑ 0\.0 MB ↓$/m);
    const [header, x] = lines(out);
    expect(header).toMatchObject({ type: 'capture', command: process.execPath, upstreams: { anthropic: mock.url } });
    expect(x).toMatchObject({ type: 'exchange', provider: 'anthropic', path: '/v1/messages', response: { status: 200, complete: true } });
    for (const text of [readFileSync(out, 'utf8'), r.stdout, r.stderr]) expect(text).not.toContain(KEY);
    expect(statSync(out).mode & 0o777).toBe(0o600);
  });

  it('exits 128 + n when a signal ends the command', async () => {
    const r = await run([
      'record',
      '--out',
      join(dir, 'b.capture.jsonl'),
      '--',
      process.execPath,
      '-e',
      'process.kill(process.pid, "SIGTERM")',
    ]);
    expect(r.code).toBe(143);
  });

  it('writes to the data folder by default, privately', async () => {
    const r = await run(['record', '--', process.execPath, '-e', '0']);
    expect(r.code).toBe(0);
    const captures = join(dir, 'data', 'captures');
    const files = readdirSync(captures);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^\d{4}-\d\d-\d\dT[\d-]+Z-\d+\.capture\.jsonl$/);
    expect(statSync(captures).mode & 0o777).toBe(0o700);
    expect(statSync(join(captures, files[0] as string)).mode & 0o777).toBe(0o600);
  });

  it('refuses bad usage with exit 2', async () => {
    const full = join(dir, 'full.capture.jsonl');
    writeFileSync(full, 'something\n');
    const cases = [
      [['record', '--upstream', 'mistral=http://x', '--', 'true'], /unknown provider "mistral"/],
      [['record', '--upstream', 'nope', '--', 'true'], /not a URL/],
      [['record', '--out', full, '--', 'true'], /already exists and is not empty/],
      [['record', '--out', dir, '--', 'true'], /not a regular file/],
      [['record'], /needs a command/],
      [['record', '--listen', 'true'], /no command/],
    ] as const;
    for (const [args, message] of cases) {
      const r = await run(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    expect(readFileSync(full, 'utf8')).toBe('something\n');
  });

  it('--listen prints the proxy URL on a line of its own and records until interrupted', async () => {
    const out = join(dir, 'listen.capture.jsonl');
    const child = spawn(process.execPath, [BIN, 'record', '--listen', '--out', out, '--upstream', `anthropic=${mock.url}`], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    const exited = new Promise<number | null>((ok) => child.on('exit', (code) => ok(code)));
    await expect.poll(() => stdout.includes('\n'), { timeout: 10_000 }).toBe(true);
    const url = stdout.split('\n')[0] as string;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetch(`${url}/anthropic/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': KEY },
      body: JSON.stringify({ model: 'claude-test', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(200);
    await res.text();
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(stdout).toContain(`export ANTHROPIC_BASE_URL=${url}/anthropic`);
    expect(stdout).toContain(`export GOOGLE_GEMINI_BASE_URL=${url}/gemini`);
    expect(stdout).toContain('Recorded 1 exchange');
    expect(lines(out).map((l) => l.type)).toEqual(['capture', 'exchange']);
    expect(readFileSync(out, 'utf8')).not.toContain(KEY);
  });
});
