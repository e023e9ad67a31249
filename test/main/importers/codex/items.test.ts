import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CanonicalEvent } from '../../../../src/shared/model/event';
import { call, complete, dev, errors, importValues, item, meta, msg, out, say, started, think, user } from './helpers';

describe('session_meta', () => {
  it('becomes the session and a header with the instructions as the system prompt, tools not recorded', () => {
    const r = importValues([meta()]);
    expect(r.of('session')).toEqual([
      expect.objectContaining({ kind: 'session', id: 'sess-1', harness: 'codex', harnessVersion: '0.104.0', cwd: '/work' }),
    ]);
    expect(r.of('header')[0]).toMatchObject({
      system: [{ type: 'text', text: 'You are Codex.' }],
      tools: null,
      route: { provider: 'openai' },
    });
    expect(r.diagnostics).toEqual([]);
  });

  it("older rollouts: `instructions` is the user's AGENTS.md, not the system prompt, which is not recorded (null)", () => {
    // A real Codex 0.58 rollout: the logged `instructions` are sent as the user message that
    // opens the history; the system prompt on the wire was Codex's built-in one.
    const values = readFileSync(
      'fixtures/corpus/codex/moonladderstudios-moonmind/rollout-2025-11-13T18-21-11-019a802a-aab1-7c31-9831-d2510c7a74a2.jsonl',
      'utf8',
    )
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const logged = (values[0]?.payload as { instructions: string }).instructions;
    const old = importValues(values);
    expect(old.of('header')[0]?.system).toBeNull();
    const first = old.of('item').find((e) => e.item.role === 'user');
    expect(first?.item.blocks.map((b) => ('text' in b ? b.text : '')).join('')).toContain(logged);
    const none = importValues([meta({ base_instructions: null })]);
    expect(none.of('header')[0]?.system).toBeNull();
  });
});

describe('response items', () => {
  it('messages: user, assistant (origin = phase), developer → system with origin "developer"', () => {
    const r = importValues([
      meta(),
      started(),
      user('Fix the bug.'),
      dev('Approved commands: ls'),
      say('Done.', 'final_answer'),
      complete(),
    ]);
    const items = r.of('item').map((e) => e.item);
    expect(items).toEqual([
      { id: 'L3', role: 'user', blocks: [{ type: 'text', text: 'Fix the bug.' }] },
      { id: 'L4', role: 'system', blocks: [{ type: 'text', text: 'Approved commands: ls' }], origin: 'developer' },
      { id: 'L5', role: 'assistant', blocks: [{ type: 'text', text: 'Done.' }], origin: 'final_answer' },
    ]);
    expect(r.of('item').every((e) => e.op.op === 'append')).toBe(true);
  });

  it('images keep their media type and decoded size, never their bytes; other parts are opaque', () => {
    const png = `data:image/png;base64,${'A'.repeat(402)}==`;
    const r = importValues([
      meta(),
      started(),
      item({
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: 'See:' },
          { type: 'input_image', image_url: png },
          { type: 'input_file', file_id: 'f1' },
        ],
      }),
    ]);
    expect(r.of('item')[0]?.item.blocks).toEqual([
      { type: 'text', text: 'See:' },
      { type: 'image', mediaType: 'image/png', bytes: 301 },
      { type: 'opaque', label: 'codex:input_file', chars: 36 },
    ]);
    expect(r.diagnostics.map((d) => [d.rule, d.severity, d.line])).toEqual([['CODEX_BAD_CONTENT', 'warning', 3]]);
  });

  it('reasoning: summary texts readable, encrypted content a redacted block', () => {
    const r = importValues([meta(), started(), user('Go'), think('Plan the fix')]);
    expect(r.of('item')[1]?.item).toEqual({
      id: 'L4',
      role: 'assistant',
      blocks: [
        { type: 'reasoning', text: 'Plan the fix' },
        { type: 'reasoning', text: '', redacted: true },
      ],
    });
  });

  it('tool calls and outputs: function, custom (apply_patch), local shell, web search', () => {
    const r = importValues([
      meta(),
      started(),
      user('Go'),
      call('c1', 'exec_command', '{"cmd":"ls -la"}'),
      item({ type: 'custom_tool_call', status: 'completed', call_id: 'c2', name: 'apply_patch', input: '*** Begin Patch\n*** End Patch' }),
      item({ type: 'local_shell_call', call_id: 'c3', status: 'completed', action: { type: 'exec', command: ['ls'] } }),
      item({ type: 'web_search_call', status: 'completed', action: { type: 'search', query: 'zod 4' } }),
      out('c1', 'total 0'),
      item({ type: 'custom_tool_call_output', call_id: 'c2', output: 'Success.' }),
      out('c3', [
        { type: 'input_text', text: 'a' },
        { type: 'input_image', image_url: 'data:image/jpeg;base64,AAAA' },
      ]),
      out('c4', { content: 'denied', success: false }),
    ]);
    const blocks = r.of('item').map((e) => [e.item.role, e.item.blocks]);
    expect(blocks.slice(1)).toEqual([
      ['assistant', [{ type: 'tool_call', id: 'c1', name: 'exec_command', input: '{"cmd":"ls -la"}' }]],
      ['assistant', [{ type: 'tool_call', id: 'c2', name: 'apply_patch', input: '*** Begin Patch\n*** End Patch' }]],
      ['assistant', [{ type: 'tool_call', id: 'c3', name: 'local_shell', input: '{"type":"exec","command":["ls"]}' }]],
      ['assistant', [{ type: 'tool_call', id: 'L7:web_search', name: 'web_search', input: '{"type":"search","query":"zod 4"}' }]],
      ['tool', [{ type: 'tool_result', callId: 'c1', content: [{ type: 'text', text: 'total 0' }] }]],
      ['tool', [{ type: 'tool_result', callId: 'c2', content: [{ type: 'text', text: 'Success.' }] }]],
      [
        'tool',
        [
          {
            type: 'tool_result',
            callId: 'c3',
            content: [
              { type: 'text', text: 'a' },
              { type: 'image', mediaType: 'image/jpeg', bytes: 3 },
            ],
          },
        ],
      ],
      ['tool', [{ type: 'tool_result', callId: 'c4', content: [{ type: 'text', text: 'denied' }], isError: true }]],
    ]);
    expect(errors(r.diagnostics)).toEqual([]);
  });

  it('ghost snapshots never reach the model (op log); image generation is an image', () => {
    const r = importValues([
      meta(),
      started(),
      user('Draw'),
      item({ type: 'image_generation_call', id: 'ig1', status: 'completed', revised_prompt: 'a cat', result: 'QUJD' }),
      item({ type: 'ghost_snapshot', ghost_commit: { id: 'abc', parent: null } }),
    ]);
    const [, img, ghost] = r.of('item');
    expect(img?.item.blocks).toEqual([
      { type: 'text', text: 'a cat' },
      { type: 'image', mediaType: 'image/png', bytes: 3 },
    ]);
    expect(ghost?.op).toEqual({ op: 'log' });
    expect(ghost?.item.blocks[0]).toMatchObject({ type: 'opaque', label: 'codex:ghost_snapshot' });
  });

  it('context: messages logged right before task_started, and user messages that open with a context tag, are meta', () => {
    const r = importValues([
      meta(),
      dev('<permissions instructions>…'),
      user('# AGENTS.md instructions for /work\n\n<INSTRUCTIONS>…'),
      user('<environment_context>…</environment_context>'),
      started(),
      user('Fix the bug.'),
      user('<environment_context><cwd>/x</cwd></environment_context>'),
      complete(),
    ]);
    const items = r.of('item').map((e) => [e.item.id, e.item.role, e.item.meta ?? false, e.item.origin]);
    expect(items).toEqual([
      ['L2', 'system', false, 'developer'],
      ['L3', 'user', true, 'context'],
      ['L4', 'user', true, 'context'],
      ['L6', 'user', false, undefined],
      ['L7', 'user', true, 'context'],
    ]);
  });

  it('every emitted event is a valid canonical event', () => {
    const r = importValues([meta(), started(), user('a'), think(), call('c'), out('c'), msg('system', 's'), say('b'), complete()]);
    for (const e of r.events) {
      const { seq: _s, line: _l, ...body } = e;
      expect(CanonicalEvent.safeParse(body).success).toBe(true);
    }
  });
});
