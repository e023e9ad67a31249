import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fastEvent } from '../../../src/main/importers/palimpsest-fast';
import { CanonicalEvent } from '../../../src/shared/model/event';
import { accepts, inner, keySets, member } from '../../../src/main/importers/palimpsest-keys';

describe('the fast path key sets follow the schema', () => {
  it('accepts exactly the keys the schema declares, for every object it checks', () => {
    const sets = keySets();
    // Every block, op, event kind and nested object the fast path checks has a set.
    expect(sets.length).toBeGreaterThanOrEqual(30);
    for (const s of sets) {
      expect(s.declared.length, s.name).toBeGreaterThan(0);
      expect([...s.accepted].sort(), s.name).toEqual([...s.declared].sort());
    }
  });

  it('drops a tested key the schema no longer declares and reports a declared key no check tests', () => {
    const schema = z.object({ kind: z.literal('x'), added: z.string() });
    const accepted = accepts('probe', schema, ['kind', 'removed']);
    expect([...accepted]).toEqual(['kind']);
    const probe = keySets().find((s) => s.name === 'probe');
    expect(probe?.declared).toEqual(['kind', 'added']);
  });

  it('finds union members and objects inside optional fields, and accepts nothing when they are gone', () => {
    const union = z.discriminatedUnion('op', [z.object({ op: z.literal('a'), at: z.number() })]);
    expect(Object.keys(member(union, 'op', 'a').shape)).toEqual(['op', 'at']);
    expect(Object.keys(member(union, 'op', 'b').shape)).toEqual([]);
    expect(Object.keys(inner(z.object({ code: z.string() }).nullable().optional()).shape)).toEqual(['code']);
    expect(Object.keys(inner(z.string().optional()).shape)).toEqual([]);
  });

  it("checks a route's reasoning effort itself, the field the hand-copied set had missed", () => {
    const line = { kind: 'request', id: 'r', route: { model: 'm', reasoning: 'high' } };
    expect(fastEvent(structuredClone(line))).toStrictEqual(CanonicalEvent.parse(line));
    expect(fastEvent({ kind: 'request', id: 'r', route: { reasoning: 3 } })).toBeNull();
  });
});
