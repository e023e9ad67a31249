import { describe, expect, it } from 'vitest';
import { diffStates, regression, type FollowState } from '../../../src/main/follow/diff';

const finding = (rule: string, line: number) => ({
  rule,
  severity: 'warning' as const,
  message: `${rule}.`,
  file: 'f',
  line,
  seqs: [line],
});
const request = (index: number, seq: number, finish: string | null = null) => ({ index, id: `r${index}`, seq, finish }) as never;
const state = (requests: unknown[], findings: ReturnType<typeof finding>[] = []): FollowState => ({
  requests: requests as never,
  compactions: [],
  findings,
});

describe('diffStates', () => {
  it('emits new and changed requests, new findings, and withdraws those that no longer hold', () => {
    const prev = state([request(0, 1), request(1, 5)], [finding('PENDING', 3), finding('KEEP', 1)]);
    const next = state([request(0, 1), request(1, 5, 'stop'), request(2, 9)], [finding('KEEP', 1), finding('NEW', 9)]);
    expect(diffStates(prev, next).map((u) => [u.type, 'index' in u ? u.index : 'rule' in u ? u.rule : null])).toEqual([
      ['request', 1],
      ['request', 2],
      ['withdrawn', 'PENDING'],
      ['finding', 'NEW'],
    ]);
  });

  it('counts equal findings one by one', () => {
    const f = finding('SAME', 2);
    expect(diffStates(state([], [f]), state([], [f, f])).map((u) => u.type)).toEqual(['finding']);
  });

  it('says when the next state does not extend the last', () => {
    expect(regression(state([request(0, 1)]), state([request(0, 1), request(1, 4)]))).toBeNull();
    expect(regression(state([request(0, 1), request(1, 4)]), state([request(0, 1)]))).toMatch(/1 requests/);
    expect(regression(state([request(0, 1)]), state([request(0, 2)]))).toMatch(/another event/);
  });
});
