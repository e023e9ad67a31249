import { describe, expect, it } from 'vitest';
import type { ModelView, ViewItem } from '../../../src/shared/model/view';
import type { Block } from '../../../src/shared/model/content';
import { defaultShape, toAnthropic, toChat, toResponses } from '../../../src/main/wire';

function item(id: string, role: ViewItem['role'], blocks: Block[] | null): ViewItem {
  return {
    id,
    seq: 0,
    role,
    kind: 'user',
    blocks,
    rendition: blocks === null ? 'masked' : 'verbatim',
    meta: false,
    derivation: null,
    provenance: [0],
  };
}

function view(over: Partial<ModelView> = {}): ModelView {
  return {
    request: {
      index: 0,
      id: 'r0',
      seq: 9,
      purpose: 'agent',
      compactionId: null,
      route: { provider: 'openai', model: 'gpt-x', maxOutput: 1000 },
      responseSeq: null,
      finish: null,
      usage: null,
      reportedInputTokens: null,
      error: null,
    },
    system: [{ type: 'text', text: 'base' }],
    headerSeqs: [],
    tools: [{ name: 'sh', description: 'run', inputSchema: { type: 'object' } }],
    items: [
      item('d', 'system', [{ type: 'text', text: 'dev' }]),
      item('u', 'user', [{ type: 'text', text: 'hi' }]),
      item('a', 'assistant', [
        { type: 'reasoning', text: '', redacted: true },
        { type: 'text', text: 'ok' },
        { type: 'tool_call', id: 'c1', name: 'sh', input: '{"cmd":"ls"}' },
      ]),
      item('t', 'tool', [{ type: 'tool_result', callId: 'c1', content: [{ type: 'text', text: 'out' }] }]),
      item('m', 'tool', null),
      item('o', 'assistant', [{ type: 'opaque', label: 'compaction', chars: 12 }]),
    ],
    todo: null,
    unknowns: [],
    ...over,
  };
}

describe('wire shapes', () => {
  it('chooses the shape from the route, then the harness', () => {
    expect(defaultShape({ provider: 'anthropic' })).toBe('anthropic');
    expect(defaultShape({ provider: 'openai' })).toBe('responses');
    expect(defaultShape({}, 'claude-code')).toBe('anthropic');
    expect(defaultShape({}, 'codex')).toBe('responses');
    expect(defaultShape({ provider: 'deepseek' }, 'dsh')).toBe('chat');
  });

  it('Responses: developer role by origin, function_call items, unknowns left out and listed', () => {
    const w = toResponses(view(), { origins: new Map([['d', 'developer']]) });
    expect(w.body).toEqual({
      model: 'gpt-x',
      max_output_tokens: 1000,
      instructions: 'base',
      tools: [{ type: 'function', name: 'sh', description: 'run', parameters: { type: 'object' } }],
      input: [
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'dev' }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'ok' }] },
        { type: 'function_call', call_id: 'c1', name: 'sh', arguments: '{"cmd":"ls"}' },
        { type: 'function_call_output', call_id: 'c1', output: 'out' },
      ],
    });
    expect(w.unknowns).toEqual([
      'redacted reasoning in item a (its encrypted content is not kept)',
      'masked item m: its reference is not recorded',
      'opaque content "compaction" in item o (12 chars)',
    ]);
  });

  it('Anthropic: tool results in user messages, same-role messages merged, parsed tool input', () => {
    const w = toAnthropic(view({ system: null, tools: null, request: { ...view().request, route: { provider: 'anthropic' } } }), {
      instruction: null,
    });
    expect(w.body).toEqual({
      messages: [
        { role: 'system', content: 'dev' },
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'ok' },
            { type: 'tool_use', id: 'c1', name: 'sh', input: { cmd: 'ls' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'out', is_error: false }] },
      ],
    });
    expect(w.unknowns).toEqual([
      'the system prompt (the log does not record it)',
      'the tool schemas (the log does not record them)',
      'model (the log does not record it)',
      'max_tokens (the log does not record it)',
      'the summarizer instruction (the log does not record it)',
      'redacted reasoning in item a',
      'masked item m: its reference is not recorded',
      'opaque content "compaction" in item o (12 chars)',
    ]);
  });

  it('Chat Completions: assistant tool_calls and tool messages with tool_call_id; a recorded instruction comes last', () => {
    const w = toChat(view(), { instruction: [{ type: 'text', text: 'summarize' }] });
    expect(w.body.messages).toEqual([
      { role: 'system', content: 'base' },
      { role: 'system', content: 'dev' },
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: 'ok',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'sh', arguments: '{"cmd":"ls"}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'out' },
      { role: 'user', content: 'summarize' },
    ]);
    expect(w.body.max_tokens).toBe(1000);
    expect(w.body.tools).toEqual([{ type: 'function', function: { name: 'sh', description: 'run', parameters: { type: 'object' } } }]);
  });
});
