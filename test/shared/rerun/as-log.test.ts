import { describe, expect, it } from 'vitest';
import type { Item } from '../../../src/shared/model/item';
import { candidateDiagnostics, candidateLog } from '../../../src/shared/rerun/as-log';
import { charCounter } from '../strategies/common/char-counter';
import type { SourceItem, SourceView, StrategyResult } from '../../../src/shared/strategies/types';
import { replay } from '../../../src/shared/replay/fold';
import { modelView } from '../../../src/shared/replay/view';

const text = (id: string, role: SourceItem['role'], t: string): SourceItem => ({
  id,
  role,
  blocks: [{ type: 'text', text: t }],
  seq: null,
});
const source: SourceView = {
  system: [{ type: 'text', text: 'You are a coding agent.' }],
  tools: null,
  items: [
    text('u1', 'user', 'Fix the bug in src/app.ts. Do not touch tests.'),
    { id: 'a1', role: 'assistant', blocks: [{ type: 'tool_call', id: 'c1', name: 'read', input: '{"path":"src/app.ts"}' }], seq: null },
    {
      id: 't1',
      role: 'tool',
      blocks: [{ type: 'tool_result', callId: 'c1', content: [{ type: 'text', text: 'x'.repeat(4000) }] }],
      seq: null,
    },
    text('a2', 'assistant', 'The bug is on line 12.'),
    text('u2', 'user', 'Go ahead.'),
  ],
  route: { model: 'm' },
  reportedInputTokens: null,
};

function result(items: Item[], summary: string | null, outcome: StrategyResult['outcome'] = 'committed'): StrategyResult {
  return {
    strategy: 'test',
    outcome,
    view: { system: source.system, tools: null, items },
    summary,
    calls: [],
    error: null,
    notes: [],
    mapreduce: null,
    tokens: { before: 1200, after: 50 },
  };
}

const keep = (id: string): Item => {
  const s = source.items.find((i) => i.id === id) as SourceItem;
  return { id: s.id, role: s.role, blocks: [...s.blocks] };
};

describe('candidateLog', () => {
  it('writes a checkpoint + tail candidate as a compaction whose next view is exactly the candidate', () => {
    const cp: Item = {
      id: 'test:0',
      role: 'user',
      blocks: [{ type: 'text', text: 'Summary: fix src/app.ts line 12; do not touch tests.' }],
      derivation: { kind: 'checkpoint', compactionId: 'rerun', covers: ['u1', 'a1', 't1', 'a2'], part: 'summary' },
    };
    const log = candidateLog(source, result([cp, keep('u2')], 'Summary: …'), 100_000);
    expect(log.problems).toEqual([]);
    const state = replay(log.events);
    const after = modelView(state, state.requests.length - 1);
    expect(after?.items.map((i) => i.id)).toEqual(['test:0', 'u2']);
    expect(state.compactions[0]?.outcome).toBe('committed');
    // A clean commit: the catalog finds nothing wrong with it (provenance cites the bracket and the shadowed items).
    const ds = candidateDiagnostics(source, result([cp, keep('u2')], 'Summary: …'), 100_000, charCounter);
    expect(ds.filter((d) => d.severity !== 'info').map((d) => `${d.rule}: ${d.message}`)).toEqual([]);
  });

  it('writes model-free pruning without a compaction bracket', () => {
    const pruned: Item = {
      id: 'p:0',
      role: 'tool',
      blocks: [{ type: 'tool_result', callId: 'c1', content: [{ type: 'text', text: '[cleared]' }] }],
      derivation: { kind: 'pruned', of: 't1', head: 0, tail: 0, omitted: 4000, unit: 'chars' },
    };
    const r = { ...result([keep('u1'), keep('a1'), pruned, keep('a2'), keep('u2')], null), calls: [] };
    const log = candidateLog(source, r, 100_000);
    expect(log.problems).toEqual([]);
    expect(log.events.some((e) => e.kind === 'compaction/start')).toBe(false);
    const ds = candidateDiagnostics(source, r, 100_000, charCounter);
    expect(ds.filter((d) => d.severity === 'error').map((d) => d.rule)).toEqual([]);
  });

  it('places the second part of a handoff pair before the kept tail', () => {
    const cont: Item = {
      id: 'h:0',
      role: 'user',
      blocks: [{ type: 'text', text: 'Continue from the handoff.' }],
      derivation: { kind: 'checkpoint', compactionId: 'rerun', covers: ['u1', 'a1', 't1'], part: 'continuation' },
    };
    const hand: Item = {
      id: 'h:1',
      role: 'assistant',
      blocks: [{ type: 'text', text: 'Handoff: …' }],
      derivation: { kind: 'checkpoint', compactionId: 'rerun', covers: ['u1', 'a1', 't1'], part: 'handoff' },
    };
    const log = candidateLog(source, result([cont, hand, keep('a2'), keep('u2')], 'Handoff: …'), 100_000);
    expect(log.problems).toEqual([]);
    const state = replay(log.events);
    expect(modelView(state, state.requests.length - 1)?.items.map((i) => i.id)).toEqual(['h:0', 'h:1', 'a2', 'u2']);
  });

  it('reports a candidate that drops items without citing them', () => {
    const log = candidateLog(source, result([keep('a2'), keep('u2')], null), 100_000);
    expect(log.problems.map((p) => p.rule)).toEqual(['RERUN_VIEW_MISMATCH']);
    expect(log.problems[0]?.message).toContain('drops 3 source item(s)');
  });

  it('runs the catalog: a checkpoint that splits a call from its result is a PAIR_SPLIT', () => {
    const cp: Item = {
      id: 'test:0',
      role: 'user',
      blocks: [{ type: 'text', text: 'Summary.' }],
      derivation: { kind: 'checkpoint', compactionId: 'rerun', covers: ['u1', 'a1'], part: 'summary' },
    };
    const ds = candidateDiagnostics(source, result([cp, keep('t1'), keep('a2'), keep('u2')], 'Summary.'), 100_000, charCounter);
    expect(ds.map((d) => d.rule)).toContain('PAIR_SPLIT');
  });
});
