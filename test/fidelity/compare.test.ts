import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compareLog, normalizeWire } from '../../src/main/fidelity/compare';
import { compareParts, similarity } from '../../src/main/wire/compare';
import { type Part, canonicalJson, joinTextRuns } from '../../src/main/wire/normalize';
import { renderReport } from '../../src/main/fidelity/report';
import { type CapturedRequest, captureOf } from '../../src/main/mock/record';

/*
 * The comparison on a hand-made pair: a Palimpsest v1 log written here and the wire requests a
 * client would have sent for it, with the representation differences real clients show (string
 * vs block content, cache_control, Claude Code's billing-header system block).
 */

const dir = mkdtempSync(join(tmpdir(), 'palimpsest-fidelity-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function log(name: string, lines: unknown[]): string {
  const p = join(dir, name);
  writeFileSync(p, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  return p;
}

let seq = 0;
function wire(body: unknown, opts: { protocol?: string; status?: number; label?: string } = {}): CapturedRequest {
  const s = seq++;
  return captureOf({
    seq: s,
    method: 'POST',
    path: opts.protocol === 'openai-responses' ? '/v1/responses' : '/v1/messages?beta=true',
    rawHeaders: ['content-type', 'application/json', 'x-api-key', 'sk-dummy'],
    body: Buffer.from(JSON.stringify(body)),
    protocol: opts.protocol ?? 'anthropic-messages',
    answer: { step: s, label: opts.label ?? null, status: opts.status ?? 200, kind: (opts.status ?? 200) === 200 ? 'reply' : 'fault:http' },
  });
}

const TOOL = { name: 'Bash', description: 'Run a command', inputSchema: { type: 'object', properties: { command: { type: 'string' } } } };
const header = (system: unknown, tools: unknown) => ({
  kind: 'header',
  system,
  tools,
  route: { provider: 'anthropic', model: 'claude-test' },
});
const session = { kind: 'session', id: 'hand-made', harness: 'test', format: 'palimpsest', version: 1 };
const u1 = { kind: 'item', item: { id: 'u1', role: 'user', blocks: [{ type: 'text', text: 'List files.' }] } };
const a1 = {
  kind: 'item',
  item: {
    id: 'a1',
    role: 'assistant',
    blocks: [
      { type: 'text', text: 'Running ls.' },
      { type: 'tool_call', id: 'toolu_1', name: 'Bash', input: '{"command":"ls"}' },
    ],
  },
};
const t1 = (text: string) => ({
  kind: 'item',
  item: { id: 't1', role: 'tool', blocks: [{ type: 'tool_result', callId: 'toolu_1', content: [{ type: 'text', text }] }] },
});

const SYSTEM_WIRE = [
  { type: 'text', text: 'x-anthropic-billing-header: cc_version=9.9.9; cc_entrypoint=test;' },
  { type: 'text', text: 'You are a test agent.', cache_control: { type: 'ephemeral' } },
];
const TOOLS_WIRE = [
  { name: 'Bash', description: 'Run a command', input_schema: { properties: { command: { type: 'string' } }, type: 'object' } },
];
const req1 = {
  model: 'claude-test',
  system: SYSTEM_WIRE,
  tools: TOOLS_WIRE,
  messages: [{ role: 'user', content: 'List files.' }],
  max_tokens: 100,
  stream: true,
};
const req2 = {
  ...req1,
  messages: [
    { role: 'user', content: [{ type: 'text', text: 'List files.' }] },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Running ls.' },
        { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } },
      ],
    },
    {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a.txt\nb.txt', cache_control: { type: 'ephemeral' } }],
    },
  ],
};
const summarizer = {
  ...req2,
  messages: [...req2.messages, { role: 'user', content: 'Your task is to create a detailed summary of the conversation so far.' }],
};

const base = { client: 'claude-code', version: 'hand', scenario: 'hand-made', covers: [], runProblems: [] };

describe('fidelity comparison on a hand-made pair', () => {
  it('matches when the log rebuilds exactly what was sent (representation differences normalised)', async () => {
    const path = log('exact.jsonl', [
      session,
      header([{ type: 'text', text: 'You are a test agent.' }], [TOOL]),
      u1,
      { kind: 'request', id: 'r1' },
      a1,
      { kind: 'response', request: 'r1' },
      t1('a.txt\nb.txt'),
      { kind: 'request', id: 'r2' },
    ]);
    const c = await compareLog({ ...base, captured: [wire(req1), wire(req2)], mainLog: path });
    expect(c.error).toBeNull();
    expect(c.requests.map((r) => r.verdict)).toEqual(['match', 'match']);
    expect(c.requests.map((r) => r.view?.id)).toEqual(['r1', 'r2']);
    expect(c.requests[0]?.notes).toEqual(['billing-header system block left out']);
    expect(c).toMatchObject({ captured: 2, matched: 2, mismatched: 0, unknown: 0, notInLog: 0, known: 2 });
  });

  it('reports the first differing part of a mismatch; counts retries and wire-only calls', async () => {
    const path = log('diff.jsonl', [
      session,
      header([{ type: 'text', text: 'You are a test agent.' }], [TOOL]),
      u1,
      { kind: 'request', id: 'r1' },
      a1,
      { kind: 'response', request: 'r1' },
      t1('a.txt'),
      { kind: 'request', id: 'r2' },
    ]);
    const c = await compareLog({
      ...base,
      mainLog: path,
      captured: [wire(req1), wire(req2, { status: 500 }), wire(req2), wire(summarizer, { label: 'summarizer' })],
    });
    expect(c.requests.map((r) => r.verdict)).toEqual(['match', 'mismatch', 'mismatch', 'not-in-log']);
    const m = c.requests[1]!;
    expect(m.messages).toMatchObject({ status: 'mismatch', index: 3 });
    expect(m.firstDiff).toBe(
      'messages[3] (1 of 5 parts differ in place): wire tool tool_result (11 chars) at char 5: "a.txt\\nb.txt" ≠ log tool tool_result (5 chars) at char 5: "a.txt"',
    );
    expect(c.requests[2]?.retryOf).toBe(m.seq);
    expect(c).toMatchObject({ matched: 1, mismatched: 2, notInLog: 1, known: 3 });
    const md = renderReport({ comparisons: [c], unavailable: [], generatedBy: 'test' });
    expect(md).toContain('| claude-code hand | hand-made | 4 | 1 | 2 | 0 | 1 | 25 % | 33 % |');
    expect(md).toContain(`(same body as wire #${m.seq}: a retry)`);
  });

  it('pairs by the response id the mock gave, however different the view is', async () => {
    seq = 0;
    const path = log('by-id.jsonl', [
      session,
      header([{ type: 'text', text: 'Something else entirely.' }], [TOOL]),
      { kind: 'item', item: { id: 'x', role: 'user', blocks: [{ type: 'text', text: 'Unrelated.' }] } },
      { kind: 'request', id: 'msg_mock_0001' },
    ]);
    const c = await compareLog({ ...base, captured: [wire(summarizer, { label: 'summarizer' }), wire(req1)], mainLog: path });
    expect(c.requests.map((r) => [r.verdict, r.view?.id ?? null])).toEqual([
      ['not-in-log', null],
      ['mismatch', 'msg_mock_0001'],
    ]);
  });

  it('what the log does not record is unknown, never a match', async () => {
    const path = log('unknown.jsonl', [session, header(null, null), u1, { kind: 'request', id: 'r1' }]);
    const c = await compareLog({ ...base, captured: [wire(req1)], mainLog: path });
    expect(c.requests[0]).toMatchObject({
      verdict: 'unknown',
      system: { status: 'unknown' },
      messages: { status: 'match' },
      tools: { status: 'unknown' },
    });
    expect(c.matched).toBe(0);
    expect(c.unknown).toBe(1);
  });

  it('a missing or unreadable log is an error with every request not in the log', async () => {
    const c = await compareLog({ ...base, captured: [wire(req1)], mainLog: join(dir, 'absent.jsonl') });
    expect(c.error).toMatch(/could not load/);
    expect(c.notInLog).toBe(1);
  });

  it('normalises the Responses API: developer messages are system, function calls and outputs are tool parts', () => {
    const c = wire(
      {
        model: 'gpt-test',
        stream: true,
        input: [
          { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Be brief.' }] },
          {
            type: 'message',
            role: 'user',
            content: [
              { type: 'input_text', text: 'hi' },
              { type: 'input_text', text: 'there' },
            ],
          },
          { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'exec_command', arguments: '{"cmd": "ls"}' },
          { type: 'function_call_output', call_id: 'call_1', output: 'a.txt' },
        ],
        tools: [{ type: 'function', name: 'exec_command', description: 'Run', parameters: { type: 'object' } }, { type: 'web_search' }],
      },
      { protocol: 'openai-responses' },
    );
    const n = normalizeWire(c)!;
    expect(n.system).toEqual([]);
    expect(n.parts).toEqual([
      { role: 'system', type: 'text', text: 'Be brief.' },
      { role: 'user', type: 'text', text: 'hi\n\nthere' },
      // Responses arguments are a string the model wrote: kept exactly (spaces included).
      { role: 'assistant', type: 'tool_call', id: 'call_1', name: 'exec_command', input: '{"cmd": "ls"}' },
      { role: 'tool', type: 'tool_result', callId: 'call_1', content: 'a.txt', isError: false },
    ]);
    expect(n.tools?.map((t) => t.name)).toEqual(['exec_command', 'web_search']);
  });

  it('helpers: canonical JSON, text runs, part comparison, similarity', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 'é' }] })).toBe('{"a":[{"c":"é","d":2}],"b":1}');
    const p = (role: Part['role'], text: string): Part => ({ role, type: 'text', text });
    expect(joinTextRuns([p('user', 'a'), p('user', 'b'), p('assistant', 'c')])).toEqual([p('user', 'a\n\nb'), p('assistant', 'c')]);
    expect(compareParts([p('user', 'a')], [p('user', 'a'), p('user', 'b')])).toMatchObject({
      status: 'mismatch',
      index: 1,
      wire: '(nothing)',
    });
    expect(compareParts([p('user', 'a')], [{ role: 'user', type: 'unknown', why: 'masked' }])).toEqual({
      status: 'unknown',
      index: 0,
      why: 'masked',
    });
    // A spanning unknown stands for what the client adds: the start of the next text up to a blank
    // line, or whole user and system texts; the parts after it are compared in place.
    const span = (why: string): Part => ({ role: 'user', type: 'unknown', why, span: 'any' });
    const a = (text: string): Part => ({ role: 'assistant', type: 'text', text });
    expect(compareParts([p('user', 'ctx\n\nhi'), a('yo')], [span('ctx'), p('user', 'hi'), a('yo')])).toEqual({
      status: 'unknown',
      index: 0,
      why: 'ctx',
    });
    expect(compareParts([p('user', 'hi'), a('yo')], [span('ctx'), p('user', 'hi'), a('yo')])).toEqual({
      status: 'unknown',
      index: 0,
      why: 'ctx',
    });
    expect(
      compareParts([p('user', 'ctx\n\nhi'), p('system', 'list'), a('yo')], [span('ctx'), p('user', 'hi'), span('list'), a('yo')]),
    ).toEqual({ status: 'unknown', index: 0, why: 'ctx; list' });
    expect(compareParts([p('user', 'ctx\n\nhi'), a('yo')], [span('ctx'), p('user', 'bye'), a('yo')])).toMatchObject({
      status: 'mismatch',
      index: 0,
    });
    expect(compareParts([p('user', 'ctx\n\nhi'), a('no')], [span('ctx'), p('user', 'hi'), a('yo')])).toMatchObject({
      status: 'mismatch',
      index: 1,
      differing: 1,
      of: 2,
    });
    // It never stands for what the model wrote.
    expect(compareParts([p('user', 'hi'), a('extra'), a('yo')], [p('user', 'hi'), span('list'), a('yo')])).toMatchObject({
      status: 'mismatch',
      index: 1,
    });
    expect(compareParts([p('user', 'hi'), p('system', 'list')], [p('user', 'hi'), span('list')])).toEqual({
      status: 'unknown',
      index: 1,
      why: 'list',
    });
    expect(compareParts([p('user', 'hi'), a('extra')], [p('user', 'hi'), span('list')])).toMatchObject({ status: 'mismatch', index: 1 });
    const n = (parts: Part[]) => ({ system: [], parts, tools: [], model: null, notes: [] });
    expect(similarity(n([p('user', 'a'), p('user', 'b')]), n([p('user', 'b'), p('user', 'a')]))).toBe(1);
    expect(similarity(n([p('user', 'a')]), n([p('user', 'z')]))).toBe(0);
  });
});
