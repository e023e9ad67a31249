import { describe, expect, it } from 'vitest';
import { dshImporter } from '../../../../src/main/importers/dsh';
import { CanonicalEvent } from '../../../../src/shared/model/event';
import { SAMPLES, errors, importFixture, readFixture } from './helpers';

describe.each(Object.entries(SAMPLES))('sample %s', (_name, rel) => {
  const r = importFixture(rel);

  it('imports with no error diagnostics', () => {
    expect(errors(r.diagnostics)).toEqual([]);
    expect(r.diagnostics.filter((d) => d.rule === 'UNKNOWN_RECORDS' || d.rule === 'DSH_BAD_REF' || d.rule === 'DSH_SEQ_GAP')).toEqual([]);
  });

  it('emits only valid canonical events, one session first, unique item ids', () => {
    for (const e of r.events) {
      const { seq: _seq, line: _line, ...body } = e;
      const parsed = CanonicalEvent.safeParse(body);
      expect(parsed.success, `line ${e.line}: ${JSON.stringify(parsed.error?.issues[0])}`).toBe(true);
    }
    expect(r.events[0]?.kind).toBe('session');
    expect(r.of('session')).toHaveLength(1);
    const ids = r.of('item').map((e) => e.item.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('keeps every line: each non-blank line yields at least one event', () => {
    const lines = new Set(r.events.map((e) => e.line));
    for (let i = 1; i < r.lines.length; i++) expect(lines.has(i), `line ${i}`).toBe(true);
  });

  it('is recognised by sniff', () => {
    expect(dshImporter.sniff(readFixture(rel).slice(0, 16), rel)).toBeGreaterThanOrEqual(0.8);
  });

  it('rehydrates every event from its own line to the same event', () => {
    for (const e of r.events) {
      const { seq: _seq, line: _line, ...body } = e;
      expect(dshImporter.rehydrate(body, r.lines[e.line] ?? {})).toEqual(body);
    }
  });
});

describe('sample details', () => {
  it('request/header maps system text, tool schemas and the route; request/context the window', () => {
    const r = importFixture(SAMPLES.compaction);
    const [header, context] = r.of('header');
    expect(header?.system?.[0]).toMatchObject({ type: 'text' });
    expect((header?.system?.[0] as { text: string }).text.startsWith('You are an AI agent powered by DeepSeek Harness.')).toBe(true);
    expect(header?.tools?.map((t) => t.name)).toContain('bash');
    expect(header?.tools?.[0]?.inputSchema).toMatchObject({ type: 'object', required: ['command', 'description'] });
    expect(header?.route).toEqual({ provider: 'deepseek-official', model: 'deepseek-v4-flash' });
    expect(context?.route).toEqual({ provider: 'deepseek-official', model: 'deepseek-v4-flash', window: 128000 });
  });

  it('placeholders mean "not recorded", said once per field', () => {
    const r = importFixture(SAMPLES.goal);
    const h = r.of('header')[0];
    expect(h).toMatchObject({ system: null, tools: null, route: { maxOutput: 256000 } });
    const infos = r.diagnostics.filter((d) => d.rule === 'DSH_NOT_RECORDED');
    expect(infos.map((d) => d.severity)).toEqual(['info', 'info']);
  });

  it('todo/write binds the plan to the last surface item', () => {
    const r = importFixture(SAMPLES.todo);
    const todo = r.of('todo')[0];
    expect(todo?.todos).toEqual([
      { content: 'read the code', status: 'in_progress' },
      { content: 'watch the background build', status: 'in_progress' },
      { content: 'write the fix', status: 'pending' },
    ]);
    const caller = r.of('item').find((e) => e.item.blocks.some((b) => b.type === 'tool_call' && b.name === 'todo_write'));
    expect(todo?.after).toBe(caller?.item.id);
  });

  it('harness-injected user messages are marked meta with their origin', () => {
    const r = importFixture(SAMPLES.goal);
    const origins = r
      .of('item')
      .filter((e) => e.item.role === 'user')
      .map((e) => [e.item.origin ?? null, e.item.meta ?? false]);
    expect(origins).toContainEqual(['goal', true]);
    expect(origins).toContainEqual(['plugin:@deepseek-ai/dsh-system-prompt', true]);
    expect(origins).toContainEqual(['plugin:tool-goal', true]);
  });

  it('a header-only log is a session and nothing else', () => {
    const r = importFixture(SAMPLES.ralph);
    expect(r.events.map((e) => e.kind)).toEqual(['session']);
  });
});
