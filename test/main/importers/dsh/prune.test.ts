import { describe, expect, it } from 'vitest';
import { PRUNE_MARKER, prunedDerivation } from '../../../../src/main/importers/dsh/prune';
import { errors, importValues } from './helpers';

const head = { type: 'session', version: 0, id: 's', createdAt: 1, delegationDepth: 0 };
const result = (text: string, extra: Record<string, unknown> = {}) => ({
  type: 'tool/result',
  data: {
    turn: 1,
    step: 1,
    message: {
      role: 'user',
      id: 'r',
      source: { kind: 'tool', callId: 'c1' },
      content: [{ type: 'tool-result', toolCallId: 'c1', content: [{ type: 'text', text }], isError: false }],
    },
  },
  ...extra,
});

describe('tool-result pruning', () => {
  // 10,000 code points, 2 of them astral (two UTF-16 units each): the pruner counts code points.
  const original = `😀${'a'.repeat(9_998)}😀`;
  const points = Array.from(original);
  const pruned = points.slice(0, 4096).join('') + PRUNE_MARKER + points.slice(-1024).join('');

  it('a replacing tool/result right after compaction/prune is a pruned copy of the original', () => {
    const r = importValues([
      head,
      { type: 'tool/call', data: { turn: 1, step: 1, callId: 'c1', name: 'read', arguments: '{}' } },
      result(original, { sourceEventSeqs: [0], surfaceOp: 'append' }),
      { type: 'compaction/prune', data: { shadowedRange: { start: 1, end: 1 }, shadowedSeqs: [1], shadowedTokenCount: 2500 } },
      result(pruned, { sourceEventSeqs: [1], surfaceOp: { op: 'replace', start: 1, end: 1 } }),
    ]);
    expect(errors(r.diagnostics)).toEqual([]);
    expect(r.diagnostics).toEqual([]);
    const [first, copy] = r.of('item');
    expect(copy?.op).toEqual({ op: 'replace', from: 'dsh:1', to: 'dsh:1' });
    expect(copy?.sources).toEqual([first?.seq]);
    expect(copy?.item.derivation).toEqual({
      kind: 'pruned',
      of: 'dsh:1',
      head: 4096,
      tail: 1024,
      omitted: 10_000 - 4096 - 1024,
      unit: 'codepoints',
    });
    expect(r.of('record').find((e) => e.type === 'compaction/prune')?.summary).toBe('prunes seq 1 (2500 tokens)');
  });

  it('the marker split across text blocks: head counts blocks before it, tail blocks after it', () => {
    const blocks = [
      {
        type: 'tool_result' as const,
        callId: 'c',
        content: [
          { type: 'text' as const, text: 'abc' },
          { type: 'text' as const, text: `de${PRUNE_MARKER}f` },
          { type: 'image' as const },
          { type: 'text' as const, text: 'gh' },
        ],
      },
    ];
    expect(prunedDerivation('dsh:9', 100, blocks)).toEqual({
      derivation: { kind: 'pruned', of: 'dsh:9', head: 5, tail: 3, omitted: 92, unit: 'codepoints' },
    });
  });

  it('without the marker, everything kept counts as head, and that is said', () => {
    const x = prunedDerivation('dsh:1', 50, [{ type: 'text', text: 'x'.repeat(20) }]);
    expect(x.derivation).toMatchObject({ head: 20, tail: 0, omitted: 30 });
    expect(x.note).toMatch(/marker/);
  });

  it('a prune not followed by its replacement is reported', () => {
    const r = importValues([
      head,
      result('x', { surfaceOp: 'append' }),
      { type: 'compaction/prune', data: { shadowedRange: { start: 0, end: 0 }, shadowedSeqs: [0], shadowedTokenCount: 1 } },
      { type: 'turn/end', data: { turn: 1, reason: { kind: 'completed' } } },
    ]);
    expect(r.diagnostics.map((d) => d.rule)).toEqual(['DSH_PRUNE_UNMATCHED']);
    expect(r.of('item').every((e) => e.item.derivation === undefined)).toBe(true);
  });
});
