import { describe, expect, it } from 'vitest';
import { copyWith } from '../../../src/main/session/copy';

describe('copyWith', () => {
  it('gives what an object spread gives: the same keys, in the same order, with the same values', () => {
    const parsed = JSON.parse('{"type":"text","text":"a long text","elided":3,"2":"x","extra":{"k":1}}') as Record<string, unknown>;
    const changes = { text: 'a', elided: 9, added: true };
    const copy = copyWith(parsed, changes);
    const spread = { ...parsed, ...changes };
    expect(copy).toStrictEqual(spread);
    expect(Object.keys(copy)).toEqual(Object.keys(spread));
    expect(JSON.stringify(copy)).toBe(JSON.stringify(spread));
  });

  it('copies: neither input changes, nested values are shared as a spread shares them', () => {
    const src = { kind: 'item', item: { id: 'i' } };
    const copy = copyWith(src, { kind: 'other' });
    expect(copy).not.toBe(src);
    expect(src).toEqual({ kind: 'item', item: { id: 'i' } });
    expect(copy.item).toBe(src.item);
  });

  it('leaves inherited keys out, as a spread does', () => {
    const proto = { inherited: 1 };
    const src = Object.assign(Object.create(proto) as Record<string, unknown>, { own: 2 });
    expect(copyWith(src, {})).toStrictEqual({ own: 2 });
  });
});
