import { describe, expect, it } from 'vitest';
import type { LogEvent } from '../../../src/shared/model/event';
import { eventAt, eventsBetween, eventsOfKind, logPrefix } from '../../../src/shared/model/event-log';

const log: LogEvent[] = [0, 1, 2, 3].map((seq) => ({ kind: 'request', id: `r${seq}`, purpose: 'agent', seq }));

describe('the event log accessors', () => {
  it('eventAt answers the seqs the log has and throws a RangeError naming the seq for any other, negative ones included', () => {
    expect(eventAt(log, 2).seq).toBe(2);
    expect(() => eventAt(log, 4)).toThrow(/seq 4 \(the log has 4\)/);
    // An array's own at(-1) is its last element; a log has no event at a negative seq.
    expect(() => eventAt(log, -1)).toThrow(RangeError);
  });

  it('eventsBetween copies a clamped half-open range', () => {
    expect(eventsBetween(log, 1, 3).map((e) => e.seq)).toEqual([1, 2]);
    expect(eventsBetween(log, -5, 99).map((e) => e.seq)).toEqual([0, 1, 2, 3]);
    expect(eventsBetween(log, 3, 1)).toEqual([]);
  });

  it('a prefix ends where it is cut: shorter length, nothing at or past the cut or below 0, iteration stops there', () => {
    const p = logPrefix(log, 2);
    expect(p.length).toBe(2);
    expect(p.at(1)?.seq).toBe(1);
    expect(p.at(2)).toBeUndefined();
    expect(p.at(-1)).toBeUndefined();
    expect([...p].map((e) => e.seq)).toEqual([0, 1]);
    expect(logPrefix(log, 10).length).toBe(4);
  });

  it('eventsOfKind gives the events of one kind in order, building no other when the log answers kinds', () => {
    const mixed: LogEvent[] = [
      { kind: 'request', id: 'a', purpose: 'agent', seq: 0 },
      { kind: 'record', type: 'hook', summary: 'x', seq: 1 },
      { kind: 'request', id: 'b', purpose: 'agent', seq: 2 },
    ];
    expect([...eventsOfKind(mixed, 'request')].map((e) => e.id)).toEqual(['a', 'b']);
    const built: number[] = [];
    const columns = {
      length: 3,
      kindAt: (s: number) => mixed[s]?.kind,
      at: (s: number) => (built.push(s), mixed[s]),
      [Symbol.iterator]: () => mixed[Symbol.iterator](),
    };
    expect([...eventsOfKind(columns, 'record')].map((e) => e.seq)).toEqual([1]);
    expect(built).toEqual([1]);
  });
});
