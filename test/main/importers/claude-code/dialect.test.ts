import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { claudeCodeImporter } from '../../../../src/main/importers/claude-code';
import { assistant, importValues, text, user } from './helpers';

// The 2.1.332 records are known by name only (no sample yet): these lines are written from the
// record names and fields we were given, to pin that they are recognised, not how they are
// eventually reconstructed.
const V = '2.1.332';
const shape = {
  type: 'api-request-shape',
  shapeHash: 'sh1',
  sessionId: 's1',
  version: V,
  timestamp: '2026-05-01T10:00:00.000Z',
  shape: {
    system: [{ type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude.", cache_control: { type: 'ephemeral' } }],
    tools: [{ name: 'Bash', description: 'Run a command.', input_schema: { type: 'object', properties: { command: { type: 'string' } } } }],
  },
};

describe('claude-code: the 2.1.332 dialect', () => {
  it('api-request-shape → header with the real system prompt and tools', () => {
    const r = importValues([
      user('u1', null, 'hi', { version: V }),
      shape,
      assistant('a1', 'u1', 'msg_1', [text('hello')], undefined, { version: V }),
    ]);
    const h = r.of('header').find((e) => e.reason === 'api-request-shape sh1');
    expect(h?.system).toEqual([{ type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude." }]);
    expect(h?.tools).toEqual([
      { name: 'Bash', description: 'Run a command.', inputSchema: { type: 'object', properties: { command: { type: 'string' } } } },
    ]);
    const v = r.view(0);
    expect(v.system).toEqual(h?.system);
    expect(v.tools?.map((t) => t.name)).toEqual(['Bash']);
    expect(v.unknowns).toEqual([]);
    const { seq: _s, line, file: _f, ...body } = h as NonNullable<typeof h>;
    expect(line).toBe(2);
    expect(claudeCodeImporter.rehydrate(body, shape)).toEqual(body);
  });

  it('the other new records are records, not unknown; attachments are meta items of the view', () => {
    const r = importValues([
      user('u1', null, 'hi', { version: V }),
      {
        type: 'attachment',
        uuid: 'at1',
        parentUuid: 'u1',
        sessionId: 's1',
        version: V,
        attachment: { type: 'todo_reminder', content: 'Your todo list is empty.' },
      },
      { type: 'api-request-blob', hash: 'b1', message: { role: 'user', content: 'hi' }, sessionId: 's1' },
      {
        type: 'api-request',
        id: 'q1',
        querySource: 'repl_main_thread',
        shapeHash: 'sh1',
        params: { model: 'claude-opus-4-6', max_tokens: 32000 },
        keep: 0,
        base: null,
        tail: ['b1'],
        sessionId: 's1',
      },
      { type: 'queue-operation', operation: 'enqueue', sessionId: 's1' },
      { type: 'last-prompt', lastPrompt: 'hi', sessionId: 's1' },
      { type: 'cost-state', sessionId: 's1' },
      { type: 'mode', mode: 'default', sessionId: 's1' },
      { type: 'tools-used', sessionId: 's1' },
      { type: 'atis-latch', sessionId: 's1' },
      assistant('a1', 'at1', 'msg_1', [text('hello')], undefined, { version: V }),
    ]);
    expect(r.of('unknown')).toEqual([]);
    expect(r.rules()).toEqual([]);
    expect(r.of('record').map((e) => e.type)).toEqual([
      'api-request-blob',
      'api-request',
      'queue-operation',
      'last-prompt',
      'cost-state',
      'mode',
      'tools-used',
      'atis-latch',
    ]);
    expect(r.of('record').find((e) => e.type === 'api-request')?.summary).toBe('repl_main_thread claude-opus-4-6 sh1');
    // The api-request names its messages: here only blob b1, which becomes an item of its own;
    // the prompt and the attachment it stands for leave the view.
    const v = r.view(0);
    expect(v.items.map((i) => [i.id, i.role])).toEqual([['api-b1', 'user']]);
    expect(v.items[0]?.blocks).toEqual([{ type: 'text', text: 'hi' }]);
  });

  it('api-request base/keep/tail: messages resolve to records (split assistant, parallel tool results) and blobs', () => {
    const sha = (m: unknown): string => createHash('sha256').update(canon(m), 'utf8').digest('hex');
    const tu = (i: string) => ({ type: 'tool_use', id: i, name: 'Bash', input: { command: i } });
    const tr = (i: string) => ({ type: 'tool_result', tool_use_id: i, content: i, is_error: false });
    const prompt = {
      role: 'user',
      content: [
        { type: 'text', text: 'reminder' },
        { type: 'text', text: 'hi' },
      ],
    };
    const sys = { role: 'system', content: [{ type: 'text', text: 'env' }] };
    const asst = { role: 'assistant', content: [tu('c1'), tu('c2')] };
    const results = { role: 'user', content: [tr('c1'), tr('c2')] };
    const r = importValues([
      user('u1', null, 'hi', { version: V }),
      { type: 'api-request-blob', hash: sha(prompt), message: prompt, sessionId: 's1' },
      { type: 'api-request-blob', hash: sha(sys), message: sys, sessionId: 's1' },
      { type: 'api-request', id: 'q1', keep: 0, base: null, tail: [sha(prompt), sha(sys)], sessionId: 's1' },
      assistant('a1', 'u1', 'msg_1', [tu('c1')], undefined, { version: V }),
      assistant('a2', 'a1', 'msg_1', [tu('c2')], undefined, { version: V }),
      { type: 'user', uuid: 'r1', parentUuid: 'a1', sessionId: 's1', version: V, message: { role: 'user', content: [tr('c1')] } },
      { type: 'user', uuid: 'r2', parentUuid: 'a2', sessionId: 's1', version: V, message: { role: 'user', content: [tr('c2')] } },
      { type: 'api-request', id: 'q2', keep: 2, base: 'q1', tail: [sha(asst), sha(results)], sessionId: 's1' },
      assistant('a3', 'r2', 'msg_2', [text('done')], undefined, { version: V }),
    ]);
    expect(r.rules()).toEqual([]);
    expect(r.view(0).items.map((i) => i.id)).toEqual([`api-${sha(prompt).slice(0, 16)}`, `api-${sha(sys).slice(0, 16)}`]);
    expect(r.view(1).items.map((i) => i.id)).toEqual([
      `api-${sha(prompt).slice(0, 16)}`,
      `api-${sha(sys).slice(0, 16)}`,
      'msg_1',
      'r1',
      'r2',
    ]);
  });

  it('an api-request naming a message the log does not hold leaves the surface and says so', () => {
    const r = importValues([
      user('u1', null, 'hi', { version: V }),
      { type: 'api-request', id: 'q1', keep: 0, base: null, tail: ['f'.repeat(64)], sessionId: 's1' },
      assistant('a1', 'u1', 'msg_1', [text('hello')], undefined, { version: V }),
    ]);
    expect(r.rules()).toContain('CC_API_REQUEST_UNRESOLVED');
    expect(r.view(0).items.map((i) => i.id)).toEqual(['u1']);
  });
});

function canon(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canon).join(',')}]`;
  if (typeof v === 'object' && v !== null) {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canon(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}
