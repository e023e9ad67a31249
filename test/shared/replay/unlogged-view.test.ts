import { describe, expect, it } from 'vitest';
import type { CanonicalEventInput } from '../../../src/shared/model/event';
import { replay } from '../../../src/shared/replay/fold';
import { modelView } from '../../../src/shared/replay/view';
import { call, log, result, user } from './build';

/*
 * RequestEvent.unlogged: what the harness changed in one request by rules its log does not record.
 * The view names each change of that request only, and only where its calls or item are in the view.
 */

const turn: CanonicalEventInput[] = [user('u1'), call('a1', 'c1'), result('r1', 'c1')];
const unknownsOf = (events: CanonicalEventInput[]): (readonly string[])[] => {
  const st = replay(log([{ kind: 'header', system: [], tools: [] }, ...events]));
  return st.requests.map((_, i) => (modelView(st, i)?.unknowns ?? []).filter((u) => u.startsWith('messages:')));
};

describe('unlogged changes in the view', () => {
  it('names maybe-cleared results by the calls found in the view, on that request only', () => {
    const all = unknownsOf([
      ...turn,
      { kind: 'request', id: 'q1', unlogged: [{ why: 'may have cleared', calls: ['c1', 'c9'] }] },
      user('u2'),
      { kind: 'request', id: 'q2' },
    ]);
    expect(all).toEqual([['messages: may have cleared (calls: c1)'], []]);
  });

  it('names nothing whose calls or item are not in the view', () => {
    const all = unknownsOf([
      ...turn,
      {
        kind: 'request',
        id: 'q1',
        unlogged: [
          { why: 'gone', calls: ['c9'] },
          { why: 'added', item: 'u9' },
        ],
      },
    ]);
    expect(all).toEqual([[]]);
  });

  it('names added text with the item it travels with, and a change without either as it is', () => {
    const all = unknownsOf([...turn, { kind: 'request', id: 'q1', unlogged: [{ why: 'a reminder', item: 'u1' }, { why: 'cleared' }] }]);
    expect(all).toEqual([['messages: a reminder (in the user message of item u1)', 'messages: cleared']]);
  });
});
