import { describe, expect, it } from 'vitest';
import { actionFor, KEY_BINDINGS } from '../../../src/renderer/session/keys';
import { compactionMarkers, diagnosticMarkers, nextMarker, requestAtOrAfter, stepRequest } from '../../../src/renderer/session/stepping';
import { trackPercent } from '../../../src/renderer/session/Timeline';

// Requests at seqs 3, 7, 12 (a summarizer call), 16, 20; a compaction over seqs 10–14 and one with no end.
const requests = [
  { index: 0, seq: 3, purpose: 'agent' },
  { index: 1, seq: 7, purpose: 'agent' },
  { index: 2, seq: 12, purpose: 'compaction' },
  { index: 3, seq: 16, purpose: 'agent' },
  { index: 4, seq: 20, purpose: 'agent' },
];
const compaction = (id: string, seqs: number[], endSeq: number | null) => ({
  id,
  seqs,
  endSeq,
  startSeq: seqs[0] ?? null,
  outcome: endSeq === null ? null : ('committed' as const),
  trigger: 'auto' as const,
});

describe('timeline markers', () => {
  it('puts a compaction on the first agent request after its last event (the first view that shows it)', () => {
    const m = compactionMarkers(requests, [compaction('c1', [10, 11, 12, 14], 14)]);
    expect(m).toEqual([expect.objectContaining({ kind: 'compaction', id: 'c1', index: 3, seq: 10 })]);
  });

  it('puts a compaction after the last request on the last request, and skips one without events', () => {
    const m = compactionMarkers(requests, [compaction('late', [22, 23], 23), compaction('empty', [], null)]);
    expect(m.map((x) => [x.id, x.index])).toEqual([['late', 4]]);
  });

  it('puts a diagnostic on the first request at or after the event it cites first', () => {
    const ds = [
      { rule: 'A', severity: 'error' as const, seqs: [12, 3], message: '' },
      { rule: 'B', severity: 'warning' as const, seqs: [8], message: '' },
      { rule: 'C', severity: 'info' as const, seqs: [], message: '' },
      { rule: 'D', severity: 'info' as const, seqs: [99], message: '' },
    ];
    expect(diagnosticMarkers(requests, ds).map((m) => [m.id, m.index, m.severity])).toEqual([
      ['A#0', 2, 'error'],
      ['B#1', 2, 'warning'],
      ['D#3', 4, 'info'],
    ]);
  });

  it('places markers on the track as the slider does', () => {
    expect(trackPercent(0, 5)).toBe(0);
    expect(trackPercent(4, 5)).toBe(100);
    expect(trackPercent(0, 1)).toBe(50);
  });
});

describe('stepping', () => {
  it('finds the request at or after an event', () => {
    expect(requestAtOrAfter(requests, 0)).toBe(0);
    expect(requestAtOrAfter(requests, 7)).toBe(1);
    expect(requestAtOrAfter(requests, 8)).toBe(2);
    expect(requestAtOrAfter(requests, 1000)).toBe(4);
    expect(requestAtOrAfter([], 3)).toBe(-1);
  });

  it('steps requests within the list, and says when nothing changes', () => {
    expect(stepRequest(5, 2, 1)).toBe(3);
    expect(stepRequest(5, 4, 1)).toBeNull();
    expect(stepRequest(5, 0, -10)).toBeNull();
    expect(stepRequest(5, 3, -10)).toBe(0);
    expect(stepRequest(5, null, 1)).toBe(0);
    expect(stepRequest(0, null, 1)).toBeNull();
  });

  it('goes to the next and previous marker strictly beyond the selection', () => {
    const ms = [1, 3, 3, 4].map((index, i) => ({ kind: 'compaction' as const, index, id: `m${i}`, label: '', severity: null, seq: 0 }));
    expect(nextMarker(ms, 0, 1)).toBe(1);
    expect(nextMarker(ms, 1, 1)).toBe(3);
    expect(nextMarker(ms, 3, 1)).toBe(4);
    expect(nextMarker(ms, 4, 1)).toBeNull();
    expect(nextMarker(ms, 4, -1)).toBe(3);
    expect(nextMarker(ms, 1, -1)).toBeNull();
    expect(nextMarker(ms, null, 1)).toBe(1);
    expect(nextMarker(ms, null, -1)).toBe(4);
  });
});

describe('keys', () => {
  const press = (key: string, mods: Partial<{ altKey: boolean; ctrlKey: boolean; metaKey: boolean }> = {}) =>
    actionFor({ key, altKey: false, ctrlKey: false, metaKey: false, ...mods });

  it('maps the documented keys to their steps', () => {
    expect(press('j')).toEqual({ type: 'request', delta: 1 });
    expect(press('ArrowUp')).toEqual({ type: 'request', delta: -1 });
    expect(press('c')).toEqual({ type: 'marker', kind: 'compaction', dir: 1 });
    expect(press('C')).toEqual({ type: 'marker', kind: 'compaction', dir: -1 });
    expect(press('D')).toEqual({ type: 'marker', kind: 'diagnostic', dir: -1 });
    expect(press('End')).toEqual({ type: 'edge', to: 'last' });
  });

  it('leaves keys with modifiers, and unknown keys, to others', () => {
    expect(press('c', { ctrlKey: true })).toBeNull();
    expect(press('j', { altKey: true })).toBeNull();
    expect(press('x')).toBeNull();
  });

  it('binds every key once', () => {
    const keys = KEY_BINDINGS.flatMap((b) => b.keys);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
