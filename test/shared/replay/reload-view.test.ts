import { describe, expect, it } from 'vitest';
import type { CanonicalEventInput } from '../../../src/shared/model/event';
import { replay } from '../../../src/shared/replay/fold';
import { modelView } from '../../../src/shared/replay/view';
import { log, request, result, user } from './build';

/*
 * HeaderEvent.reloadMayDrop: a harness that may leave out, after a reload, the parallel calls its
 * log's parent links do not reach. The view names it only where its items hold such calls.
 */

const both = (id: string, a: string, b: string): CanonicalEventInput => ({
  kind: 'item',
  item: {
    id,
    role: 'assistant',
    blocks: [
      { type: 'tool_call', id: a, name: 'bash', input: '{}' },
      { type: 'tool_call', id: b, name: 'bash', input: '{}' },
    ],
  },
});

const WHY = 'a reload may leave them out';
const turn: CanonicalEventInput[] = [user('u1'), both('a1', 'c1', 'c2'), result('r1', 'c1'), result('r2', 'c2'), request('q1')];
const unknownsAt = (header: Record<string, unknown>, after: CanonicalEventInput[]): (readonly string[])[] => {
  const st = replay(log([{ kind: 'header', system: [], tools: [], ...header }, ...turn, ...after]));
  return st.requests.map((_, i) => modelView(st, i)?.unknowns ?? []);
};

describe('reloadMayDrop in the view', () => {
  it('names the calls the last result does not answer, once a later turn follows', () => {
    const all = unknownsAt({ reloadMayDrop: WHY }, [user('u2'), request('q2')]);
    expect(all).toEqual([[], [`messages: ${WHY} (calls: c1)`]]);
  });

  it('names nothing when the envelope does not say so (absent, null or empty)', () => {
    for (const h of [{}, { reloadMayDrop: null }, { reloadMayDrop: '' }])
      expect(unknownsAt(h, [user('u2'), request('q2')])).toEqual([[], []]);
  });

  it('a later header turns it off (null) or leaves it (absent)', () => {
    const off = unknownsAt({ reloadMayDrop: WHY }, [{ kind: 'header', reloadMayDrop: null }, user('u2'), request('q2')]);
    expect(off).toEqual([[], []]);
    const kept = unknownsAt({ reloadMayDrop: WHY }, [{ kind: 'header', route: { model: 'm' } }, user('u2'), request('q2')]);
    expect(kept[1]).toEqual([`messages: ${WHY} (calls: c1)`]);
  });
});
