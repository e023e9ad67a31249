import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rindImporter } from '../../../../src/main/importers/rind';
import { key, mapUsage, pyStr, truthy } from '../../../../src/main/importers/rind/records';
import { FakeSink, asst, calls, compaction, importRind, marker, record, toolMsg, user } from './helpers';

describe('Rind usage, meta and records', () => {
  it('maps Rind’s normalised usage: input without cached tokens, context = the whole prompt', () => {
    expect(mapUsage({ input_tokens: 1000, cached_input_tokens: 300, output_tokens: 20, reasoning_output_tokens: 5 })).toEqual({
      input: 700,
      cacheRead: 300,
      context: 1000,
      output: 20,
      reasoning: 5,
    });
    expect(mapUsage({})).toBeUndefined();
    expect(mapUsage('x')).toBeUndefined();
  });

  it('reproduces Python truthiness and str() keys', () => {
    expect([truthy(0), truthy(''), truthy(null), truthy([]), truthy({}), truthy('a'), truthy(1)]).toEqual([
      false,
      false,
      false,
      false,
      false,
      true,
      true,
    ]);
    expect([key(0), key(''), key(7), key('k'), pyStr(true)]).toEqual([null, null, '7', 'k', 'True']);
  });

  it('attaches meta.json’s latest assistant usage to the last request when its time fits, else says so', () => {
    const messages = [
      user('m1', 'a'),
      asst('m2', 'b'),
      { id: 'm3', ts: '2026-01-01T00:01:00.000000+00:00', role: 'user', content: 'c' },
      { id: 'm4', ts: '2026-01-01T00:01:10.000000+00:00', role: 'assistant', content: 'd' },
    ];
    const usage = { sampling_kind: 'assistant', input_tokens: 500, cached_input_tokens: 100, output_tokens: 9 };
    const ok = importRind({
      meta: { session_id: 's1', latest_assistant_sampling_usage: { ...usage, updated_at: '2026-01-01T00:01:05.000000+00:00' } },
      messages,
    });
    expect(ok.state.requests.map((r) => r.usage)).toEqual([null, { input: 400, cacheRead: 100, context: 500, output: 9 }]);
    expect(ok.of('session')[0]?.id).toBe('s1');
    const late = importRind({
      meta: { latest_assistant_sampling_usage: { ...usage, updated_at: '2026-01-01T00:02:00.000000+00:00' } },
      messages,
    });
    expect(late.of('response')).toEqual([]);
    expect(late.rules()).toContain('RIND_USAGE_UNPLACED');
  });

  it('reports no messages.jsonl', () => {
    const sink = new FakeSink();
    const s = rindImporter.openSession?.(sink);
    s?.file({ path: '/x/tool_calls.jsonl', index: 0 }).end();
    s?.end();
    expect(sink.diagnostics.map((d) => d.rule)).toContain('RIND_NO_MESSAGES');
  });
});

describe('Rind session directory', () => {
  it('claims a directory with messages.jsonl, joined files first; reads meta.json beside it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rind-'));
    const s = join(dir, '20260101_000000_cafe');
    mkdirSync(s);
    writeFileSync(join(s, 'messages.jsonl'), '');
    expect(await rindImporter.sessionFiles?.(s, true)).toEqual([join(s, 'messages.jsonl')]);
    writeFileSync(join(s, 'tool_calls.jsonl'), '');
    writeFileSync(join(s, 'compactions.jsonl'), '');
    expect(await rindImporter.sessionFiles?.(s, true)).toEqual([
      join(s, 'compactions.jsonl'),
      join(s, 'tool_calls.jsonl'),
      join(s, 'messages.jsonl'),
    ]);
    expect(await rindImporter.sessionFiles?.(dir, true)).toBeNull();
    expect(await rindImporter.sessionFiles?.(join(s, 'messages.jsonl'), false)).toBeNull();
    writeFileSync(join(s, 'meta.json'), JSON.stringify({ schema_version: '1.0', session_id: 'cafe', model: 'm' }, null, 2));
    const sink = new FakeSink();
    const session = rindImporter.openSession?.(sink);
    const f = session?.file({ path: join(s, 'messages.jsonl'), index: 0 });
    f?.line({ value: user('m1', 'hi'), line: 1, offset: 0, length: 10 });
    f?.end();
    session?.end();
    expect(sink.events[0]).toMatchObject({ kind: 'session', id: 'cafe' });
    expect(sink.events.find((e) => e.kind === 'record')).toMatchObject({ type: 'meta.json', summary: 'model m, schema 1.0' });
    expect(sink.diagnostics.map((d) => d.rule)).toContain('RIND_META');
  });

  it('sniffs messages.jsonl lines, not other formats', () => {
    const lines = [user('m1', 'a'), asst('m2', 'b')];
    expect(rindImporter.sniff(lines, '/s/messages.jsonl')).toBeGreaterThan(0.8);
    expect(rindImporter.sniff([{ type: 'user', message: {} }], '/x.jsonl')).toBe(0);
    expect(rindImporter.sniff([{ kind: 'session', id: 'x' }], '/x.jsonl')).toBe(0);
    expect(rindImporter.sniff([], '/x.jsonl')).toBe(0);
  });

  it('rehydrates message text and tool-call arguments from the message line; unjoined parts come back as they are', () => {
    const long = 'x'.repeat(3000);
    const line = calls('m2', [['c1', 'a', '{"q":"' + long + '"}']], long);
    const elided = {
      kind: 'item' as const,
      op: { op: 'append' as const },
      item: {
        id: 'm2',
        role: 'assistant' as const,
        blocks: [
          { type: 'text' as const, text: 'x', elided: 2999 },
          { type: 'tool_call' as const, id: 'c1', name: 'a', input: '{', elided: 3008 },
        ],
      },
    };
    const full = rindImporter.rehydrate(elided, line);
    expect(full?.kind === 'item' ? full.item.blocks : null).toEqual([
      { type: 'text', text: long },
      { type: 'tool_call', id: 'c1', name: 'a', input: '{"q":"' + long + '"}' },
    ]);
    expect(rindImporter.rehydrate(elided, user('m9', 'other role'))).toBeNull();
    const tool = { kind: 'item' as const, op: { op: 'append' as const }, item: { id: 'm3', role: 'tool' as const, blocks: [] } };
    expect(rindImporter.rehydrate(tool, toolMsg('m3', 'c1'))).toBe(tool);
  });

  it('rehydrates a tool result from its record line, and the pair and summary from their compaction record line', () => {
    const long = 'y'.repeat(3000);
    const handoff = 'h'.repeat(2500);
    const r = importRind({
      tools: [record('c1', long)],
      compactions: [compaction('k1', 'llm_inline', handoff, { continuation_user_message: { role: 'user', content: 'c'.repeat(900) } })],
      messages: [user('m1', 'go'), calls('m2', [['c1', 'x', '{}']]), toolMsg('m3', 'c1'), marker('m4', 'k1'), marker('m5', 'k1')],
    });
    const elide = (text: string): { type: 'text'; text: string; elided: number } => ({
      type: 'text',
      text: text.slice(0, 160),
      elided: text.length - 160,
    });
    const result = r.of('item').find((e) => e.item.id === 'm3');
    expect(result).toMatchObject({ file: 1, line: 1 });
    const elidedResult = {
      kind: 'item' as const,
      op: { op: 'append' as const },
      item: { id: 'm3', role: 'tool' as const, blocks: [{ type: 'tool_result' as const, callId: 'c1', content: [elide(long)] }] },
    };
    expect(rindImporter.rehydrate(elidedResult, record('c1', long))).toEqual({
      ...elidedResult,
      item: { ...elidedResult.item, blocks: [{ type: 'tool_result', callId: 'c1', content: [{ type: 'text', text: long }] }] },
    });
    // Another call's record, or one that lost its model_content: the line no longer yields the event.
    expect(rindImporter.rehydrate(elidedResult, record('c2', long))).toBeNull();
    expect(rindImporter.rehydrate(elidedResult, record('c1', null))).toBeNull();
    // The second marker of k1 made pair k1#2; both pairs and both summaries re-read k1's record.
    const line = compaction('k1', 'llm_inline', handoff, { continuation_user_message: { role: 'user', content: 'c'.repeat(900) } });
    for (const e of r.events) {
      if (e.kind === 'item' && e.item.derivation?.kind === 'checkpoint') {
        expect([e.file, e.line]).toEqual([0, 1]);
        const part = e.item.derivation.part;
        const full = rindImporter.rehydrate(
          { ...e, item: { ...e.item, blocks: [elide(part === 'handoff' ? handoff : 'c'.repeat(900))] } },
          line,
        );
        expect(full?.kind === 'item' ? full.item.blocks : null).toEqual([
          { type: 'text', text: part === 'handoff' ? handoff : 'c'.repeat(900) },
        ]);
        expect(rindImporter.rehydrate(e, compaction('k2', 'llm_inline', handoff))).toBeNull();
      }
      if (e.kind === 'compaction/summary') {
        const full = rindImporter.rehydrate({ ...e, summary: [elide(handoff)] }, line);
        expect(full?.kind === 'compaction/summary' ? full.summary : null).toEqual([{ type: 'text', text: handoff }]);
      }
    }
    expect(
      r.events.filter((e) => e.kind === 'item' && e.item.derivation?.kind === 'checkpoint').map((e) => e.kind === 'item' && e.item.id),
    ).toEqual(['k1:continuation', 'k1:handoff', 'k1#2:continuation', 'k1#2:handoff']);
  });
});

describe('Rind bad input never throws', () => {
  const base = [
    user('m1', 'a'),
    calls('m2', [['c1', 'x', '{}']]),
    toolMsg('m3', 'c1'),
    asst('m4', 'b'),
    { id: 'm5', ts: 't', role: 'assistant', content: '', meta: { kind: 'compact_boundary', compact_id: 'k1' } },
  ];
  const tools = [record('c1', 'out')];
  const comps = [
    {
      id: 'k1',
      strategy: 'llm_inline',
      handoff_message: { role: 'assistant', content: 'h' },
      continuation_user_message: { role: 'user', content: 'c' },
      usage: { input_tokens: 3 },
    },
  ];
  const mutate = (rows: Record<string, unknown>[], i: number, key: string, value: unknown): Record<string, unknown>[] =>
    rows.map((r, j) => (j === i % rows.length ? { ...r, [key]: value } : r));
  const anyValue = fc.oneof(
    fc.constant(undefined),
    fc.constant(null),
    fc.integer(),
    fc.string(),
    fc.boolean(),
    fc.array(fc.anything(), { maxLength: 3 }),
    fc.dictionary(fc.string(), fc.anything(), { maxKeys: 3 }),
  );
  const keys = fc.constantFrom(
    'id',
    'role',
    'content',
    'meta',
    'tool_call_id',
    'reasoning_content',
    'ts',
    'model_content',
    'raw_args',
    'handoff_message',
    'continuation_user_message',
    'strategy',
    'usage',
    'source',
    'fallback_error',
    'name',
  );

  it('mutated lines in any of the three files never throw, and every line leaves an event', () => {
    fc.assert(
      fc.property(fc.nat(), keys, anyValue, fc.constantFrom(0, 1, 2), (i, k, v, which) => {
        const input = {
          messages: which === 0 ? mutate(base, i, k, v) : base,
          tools: which === 1 ? mutate(tools, i, k, v) : tools,
          compactions: which === 2 ? mutate(comps, i, k, v) : comps,
        };
        const r = importRind(input);
        const lines = new Set(r.events.map((e) => `${e.file}:${e.line}`));
        // A result message whose item is located at its tool record (where its text is) leaves no
        // event of its own at its line: that item stands for it.
        const relocated = new Set(
          r.events.flatMap((e) =>
            (e.kind === 'item' && e.file !== 2 ? e.item.blocks : []).map((b) => (b.type === 'tool_result' ? b.callId : '')),
          ),
        );
        const results = input.messages.filter(
          (m, i) => !lines.has(`2:${i + 1}`) && m.role === 'tool' && relocated.has(String(m.tool_call_id)),
        );
        expect(lines.size + results.length).toBe(base.length + tools.length + comps.length);
      }),
      { numRuns: 300 },
    );
  });
});
