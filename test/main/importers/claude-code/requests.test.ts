import { UNRECORDED_CONTEXT } from '../../../../src/main/dialects/claude-unrecorded';
import { describe, expect, it } from 'vitest';
import { mapFinish, mapUsage } from '../../../../src/main/importers/claude-code/blocks';
import { assistant, errors, importValues, progress, text, textOf, toolResult, toolUse, user } from './helpers';

describe('claude-code: one API response written as several lines', () => {
  const lines = [
    user('u1', null, 'List the files.'),
    assistant('a1', 'u1', 'msg_1', [text('Let me look.')], {
      input_tokens: 3,
      cache_creation_input_tokens: 200,
      cache_read_input_tokens: 1000,
      output_tokens: 5,
    }),
    assistant('a2', 'a1', 'msg_1', [{ type: 'thinking', thinking: 'ls is enough', signature: 'sig' }], {
      input_tokens: 3,
      cache_creation_input_tokens: 200,
      cache_read_input_tokens: 1000,
      output_tokens: 5,
    }),
    assistant('a3', 'a2', 'msg_1', [toolUse('t1')], {
      input_tokens: 3,
      cache_creation_input_tokens: 200,
      cache_read_input_tokens: 1000,
      output_tokens: 42,
    }),
    progress('p1', 'a3'),
    toolResult('r1', 'a3', 't1', 'a.txt b.txt'),
    assistant('a4', 'r1', 'msg_2', [text('Two files.')], { input_tokens: 1, cache_read_input_tokens: 1300, output_tokens: 4 }),
  ];

  it('merges lines sharing message.id into one item: the first appends, later ones extend it', () => {
    const r = importValues(lines);
    const items = r.of('item').filter((e) => e.item.role === 'assistant');
    expect(items.map((e) => [e.item.id, e.op.op])).toEqual([
      ['msg_1', 'append'],
      ['msg_1', 'extend'],
      ['msg_1', 'extend'],
      ['msg_2', 'append'],
    ]);
    const v = r.view(1);
    expect(v.items.map((i) => i.id)).toEqual(['u1', 'msg_1', 'r1']);
    const merged = v.items[1];
    expect(merged?.blocks?.map((b) => b.type)).toEqual(['text', 'reasoning', 'tool_call']);
    expect(merged?.kind).toBe('tool_call');
    // Provenance: the item and both extensions.
    expect(merged?.provenance).toHaveLength(3);
    expect(errors(r.diagnostics)).toEqual([]);
  });

  it("makes one request per distinct message.id, before its first line, and one response with the last line's usage", () => {
    const r = importValues(lines);
    expect(r.of('request').map((e) => [e.id, e.purpose, e.line])).toEqual([
      ['msg_1', 'agent', 2],
      ['msg_2', 'agent', 7],
    ]);
    const responses = r.of('response');
    expect(responses.map((e) => e.request)).toEqual(['msg_1', 'msg_2']);
    // Usage counted once per message.id: input parts from any line, output from the last.
    expect(responses[0]?.usage).toEqual({ input: 3, cacheWrite: 200, cacheRead: 1000, output: 42 });
    expect(responses[0]?.line).toBe(4);
    const st = r.replay();
    expect(st.requests.map((q) => q.usage?.output)).toEqual([42, 4]);
    expect(r.view(0).request.reportedInputTokens).toBe(3 + 200 + 1000);
    expect(r.view(1).request.reportedInputTokens).toBe(1 + 1300);
  });

  it('keeps a split response together when a tool result is logged between its lines', () => {
    // Streaming tool execution: the first call's result is written before the second call's line.
    const r = importValues([
      user('u1', null, 'go'),
      assistant('a1', 'u1', 'msg_1', [toolUse('t1')], { input_tokens: 5, output_tokens: 25 }),
      toolResult('r1', 'a1', 't1', 'one'),
      assistant('a2', 'r1', 'msg_1', [toolUse('t2')], { input_tokens: 5, output_tokens: 173 }),
      toolResult('r2', 'a2', 't2', 'two'),
      assistant('a3', 'r2', 'msg_2', [text('done')]),
    ]);
    expect(r.branches()).toEqual(['main']);
    expect(r.of('request').map((e) => e.id)).toEqual(['msg_1', 'msg_2']);
    expect(r.of('response')[0]?.usage?.output).toBe(173);
    const v = r.view(1);
    expect(v.items.map((i) => i.id)).toEqual(['u1', 'msg_1', 'r1', 'r2']);
    expect(textOf(v.items[1]?.blocks ?? null)).toBe('Bash({"command":"ls"})Bash({"command":"ls"})');
  });

  it('writes a header with the model when it changes, and keeps system and tools unknown', () => {
    const r = importValues([
      user('u1', null, 'hi'),
      assistant('a1', 'u1', 'msg_1', [text('hello')]),
      user('u2', 'a1', 'again'),
      assistant('a2', 'u2', 'msg_2', [text('hello')], undefined, {
        message: { model: 'claude-haiku-4-5', id: 'msg_2', role: 'assistant', content: [text('x')], usage: { input_tokens: 1 } },
      }),
    ]);
    const headers = r.of('header');
    expect(headers[0]).toMatchObject({ system: null, tools: null, route: { provider: 'anthropic' } });
    expect(headers.slice(1).map((h) => h.route?.model)).toEqual(['claude-opus-4-6', 'claude-haiku-4-5']);
    const v = r.view(1);
    expect(v.system).toBeNull();
    expect(v.tools).toBeNull();
    expect(v.request.route).toMatchObject({ provider: 'anthropic', model: 'claude-haiku-4-5' });
    expect(v.unknowns).toEqual([
      'system prompt: the log does not record it',
      'tool schemas: the log does not record them',
      `messages: ${UNRECORDED_CONTEXT}`,
    ]);
  });

  it('keeps tool results as user items with tool_result blocks, as the Messages API has them', () => {
    const r = importValues(lines);
    const result = r.view(1).items[2];
    expect(result).toMatchObject({ role: 'user', kind: 'tool_result' });
    expect(result?.blocks).toEqual([{ type: 'tool_result', callId: 't1', content: [{ type: 'text', text: 'a.txt b.txt' }] }]);
  });

  it('records no request for <synthetic> lines, and an error response for API error lines', () => {
    const synthetic = assistant('a1', 'u1', 'syn-1', [text('No response requested.')]);
    (synthetic.message as Record<string, unknown>).model = '<synthetic>';
    const apiError = assistant(
      'a2',
      'u2',
      'err-1',
      [text('API Error: 529 Overloaded')],
      {},
      { isApiErrorMessage: true, error: 'overloaded' },
    );
    (apiError.message as Record<string, unknown>).model = '<synthetic>';
    const r = importValues([
      user('u1', null, 'hi'),
      synthetic,
      user('u2', 'a1', 'again'),
      apiError,
      user('u3', 'a2', 'retry'),
      assistant('a3', 'u3', 'msg_3', [text('ok')]),
    ]);
    expect(r.of('request').map((e) => e.id)).toEqual(['err-1', 'msg_3']);
    expect(r.of('response')[0]).toMatchObject({ request: 'err-1', error: { code: 'overloaded', message: 'API Error: 529 Overloaded' } });
    const items = r.of('item');
    expect(items.find((e) => e.item.id === 'syn-1')).toMatchObject({ op: { op: 'append' }, item: { origin: 'synthetic' } });
    expect(items.find((e) => e.item.id === 'err-1')).toMatchObject({ op: { op: 'log' }, item: { origin: 'api-error' } });
    expect(r.view(1).items.map((i) => i.id)).toEqual(['u1', 'syn-1', 'u2', 'u3']);
  });
});

describe('claude-code: usage and finish mapping', () => {
  it('maps Anthropic usage to disjoint canonical counts', () => {
    expect(
      mapUsage({
        input_tokens: 3,
        cache_creation_input_tokens: 8681,
        cache_read_input_tokens: 164830,
        output_tokens: 8,
        cache_creation: {},
      }),
    ).toEqual({
      input: 3,
      cacheWrite: 8681,
      cacheRead: 164830,
      output: 8,
    });
    expect(mapUsage({})).toBeUndefined();
    expect(mapUsage({ input_tokens: -1, output_tokens: 2.5 })).toBeUndefined();
  });

  it('normalises stop reasons and keeps the raw one; null means none was logged', () => {
    expect(mapFinish('end_turn')).toEqual({ raw: 'end_turn', reason: 'stop' });
    expect(mapFinish('tool_use')).toEqual({ raw: 'tool_use', reason: 'tool_calls' });
    expect(mapFinish('max_tokens')).toEqual({ raw: 'max_tokens', reason: 'length' });
    expect(mapFinish('refusal')).toEqual({ raw: 'refusal', reason: 'refusal' });
    expect(mapFinish('pause_turn')).toEqual({ raw: 'pause_turn', reason: 'pause' });
    expect(mapFinish('model_context_window_exceeded')).toEqual({ raw: 'model_context_window_exceeded', reason: 'unknown' });
    expect(mapFinish(null)).toBeUndefined();
  });

  it("puts the last line's stop_reason on the response", () => {
    const r = importValues([
      user('u1', null, 'hi'),
      assistant('a1', 'u1', 'msg_1', [text('a')]),
      {
        ...assistant('a2', 'a1', 'msg_1', [toolUse('t1')]),
        message: {
          id: 'msg_1',
          model: 'm',
          role: 'assistant',
          content: [toolUse('t1')],
          stop_reason: 'tool_use',
          usage: { input_tokens: 1, output_tokens: 9 },
        },
      },
    ]);
    expect(r.of('response')[0]).toMatchObject({ finish: { raw: 'tool_use', reason: 'tool_calls' }, usage: { input: 1, output: 9 } });
  });
});
