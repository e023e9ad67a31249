import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBuilt, type Run } from './run-built';

const DEPTH = 100_000;

const run = (...args: string[]): Promise<Run> => runBuilt(args, 50_000);

/** `{"a":{"a":…1…}}` nested DEPTH levels, built as text: JSON.stringify itself recurses and would overflow. */
const deep = '{"a":'.repeat(DEPTH) + '1' + '}'.repeat(DEPTH);

/** Palimpsest format: the tool call's input is the deep JSON as a string; a tool's input schema is the deep value itself. */
const palimpsest = [
  '{"kind":"session","format":"palimpsest","version":1,"id":"deep","harness":"test"}',
  `{"kind":"header","system":[{"type":"text","text":"sys"}],"tools":[{"name":"bash","description":"Run","inputSchema":${deep}}],"route":{"provider":"anthropic","model":"claude-test","window":200000,"maxOutput":8192}}`,
  '{"kind":"item","item":{"id":"u1","role":"user","blocks":[{"type":"text","text":"hi"}]}}',
  '{"kind":"request","id":"req1"}',
  `{"kind":"item","item":{"id":"a1","role":"assistant","blocks":[{"type":"tool_call","id":"k1","name":"bash","input":${JSON.stringify(deep)}}]}}`,
  '{"kind":"response","request":"req1"}',
  '{"kind":"item","item":{"id":"r1","role":"tool","blocks":[{"type":"tool_result","callId":"k1","content":[{"type":"text","text":"ok"}]}]}}',
  '{"kind":"request","id":"req2"}',
].join('\n');

const ccLine = (uuid: string, parent: string | null, type: string, message: string) =>
  `{"parentUuid":${parent === null ? 'null' : `"${parent}"`},"isSidechain":false,"userType":"external","cwd":"/tmp","sessionId":"s1","version":"2.1.38","type":"${type}","message":${message},"uuid":"${uuid}","timestamp":"2026-02-10T21:11:56.846Z"}`;

/** Claude Code: the tool_use input is the deep object itself. */
const claudeCode = [
  ccLine('u1', null, 'user', '{"role":"user","content":"hi"}'),
  ccLine(
    'a1',
    'u1',
    'assistant',
    `{"model":"claude-opus-4-6","id":"msg_1","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":${deep}}],"stop_reason":"tool_use","usage":{"input_tokens":3,"output_tokens":13}}`,
  ),
  ccLine('u2', 'a1', 'user', '{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}'),
  ccLine(
    'a2',
    'u2',
    'assistant',
    '{"model":"claude-opus-4-6","id":"msg_2","type":"message","role":"assistant","content":[{"type":"text","text":"done"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":13}}',
  ),
].join('\n');

let dir: string;
const files: Record<string, string> = {};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'palimpsest-deep-'));
  files.palimpsest = join(dir, 'deep.jsonl');
  writeFileSync(files.palimpsest, `${palimpsest}\n`);
  files.claudeCode = join(dir, 'deep-cc.jsonl');
  writeFileSync(files.claudeCode, `${claudeCode}\n`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const noInternalError = (r: Run) => {
  expect(r.stderr).not.toMatch(/internal error|Maximum call stack/);
  expect([0, 1, 2]).toContain(r.code);
};

describe('a session whose tool input nests 100,000 deep', () => {
  it('view --wire of the request after the deep tool call prints the body and names the input it left out (Palimpsest)', async () => {
    const r = await run('view', files.palimpsest ?? '', '--request', '1', '--wire');
    noInternalError(r);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveProperty('messages');
    expect(r.stderr).toMatch(/unknown: tool call k1 in item a1: its input nests more than 1000 levels deep/);
  }, 60_000);

  it('a tool schema nested 100,000 deep is kept as its text and reported with its line (Palimpsest)', async () => {
    const r = await run('inspect', files.palimpsest ?? '');
    noInternalError(r);
    expect(r.stdout).toMatch(
      /PALIMPSEST_TOO_DEEP\s+\S*deep\.jsonl:2\s+Line 2: the input schema of "bash" nests more than 1000 levels deep/,
    );
    for (const args of [['view', '--request', '1', '--json'], ['tokens']]) {
      const v = await run(args[0] ?? '', files.palimpsest ?? '', ...args.slice(1));
      noInternalError(v);
      expect(v.code).toBe(0);
    }
  }, 60_000);

  it('inspect, events --json and view --wire read a Claude Code session with a 100,000-deep tool input', async () => {
    const inspect = await run('inspect', files.claudeCode ?? '');
    noInternalError(inspect);
    expect(inspect.stdout).toMatch(/CC_TOO_DEEP\s+\S*deep-cc\.jsonl:2\s+1 tool input nests more than 1000 levels deep/);
    const events = await run('events', files.claudeCode ?? '', '--json');
    noInternalError(events);
    const call = events.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { item?: { blocks?: { type: string; input?: string }[] } })
      .flatMap((e) => e.item?.blocks ?? [])
      .find((b) => b.type === 'tool_call');
    // The input is kept whole, as the JSON text the log holds.
    expect(call?.input).toBe(deep);
    const wire = await run('view', files.claudeCode ?? '', '--request', '1', '--wire');
    noInternalError(wire);
    expect(wire.stderr).toMatch(/its input nests more than 1000 levels deep/);
  }, 60_000);

  it('events --json on the Palimpsest session prints every event', async () => {
    const r = await run('events', files.palimpsest ?? '', '--json');
    noInternalError(r);
    expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(8);
  }, 60_000);
});
