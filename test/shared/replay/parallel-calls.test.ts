import { describe, expect, it } from 'vitest';
import type { ViewItem } from '../../../src/shared/model/view';
import { parallelCallsAtRisk } from '../../../src/shared/replay/parallel-calls';
import { text } from './build';

/* The parallel calls a reload that walks the log's parent links back from the leaf leaves out. */

describe('parallelCallsAtRisk', () => {
  const item = (id: string, role: ViewItem['role'], blocks: ViewItem['blocks']): ViewItem => ({
    id,
    seq: 0,
    role,
    kind: role === 'assistant' ? 'assistant' : 'user',
    blocks,
    rendition: 'verbatim',
    meta: false,
    derivation: null,
    provenance: [],
  });
  const calls = (id: string, ...ids: string[]): ViewItem =>
    item(
      id,
      'assistant',
      ids.map((c) => ({ type: 'tool_call' as const, id: c, name: 'bash', input: '{}' })),
    );
  const answers = (id: string, ...ids: string[]): ViewItem =>
    item(
      id,
      'user',
      ids.map((c) => ({ type: 'tool_result' as const, callId: c, content: text('ok') })),
    );
  const prompt = (id: string): ViewItem => item(id, 'user', text(id));

  it('needs several calls answered in several records, and a later turn', () => {
    expect(parallelCallsAtRisk([calls('a', 'x', 'y', 'z'), answers('r1', 'x'), answers('r2', 'y', 'z'), prompt('p')])).toEqual(
      new Set(['x']),
    );
    // One record answers both: the walk reaches both.
    expect(parallelCallsAtRisk([calls('a', 'x', 'y'), answers('r', 'x', 'y'), prompt('p')])).toEqual(new Set());
    // No later turn yet: the same process sends them.
    expect(parallelCallsAtRisk([calls('a', 'x', 'y'), answers('r1', 'x'), answers('r2', 'y')])).toEqual(new Set());
    // One call: nothing parallel.
    expect(parallelCallsAtRisk([calls('a', 'x'), answers('r1', 'x'), prompt('p')])).toEqual(new Set());
    // A call never answered is left out too.
    expect(parallelCallsAtRisk([calls('a', 'x', 'y', 'w'), answers('r1', 'x'), answers('r2', 'y'), prompt('p')])).toEqual(
      new Set(['x', 'w']),
    );
  });

  it('takes each response apart', () => {
    const items = [
      calls('a', 'x', 'y'),
      answers('r1', 'x'),
      answers('r2', 'y'),
      prompt('p1'),
      calls('b', 'u', 'v'),
      answers('r3', 'v'),
      answers('r4', 'u'),
      prompt('p2'),
    ];
    expect(parallelCallsAtRisk(items)).toEqual(new Set(['x', 'v']));
  });
});
