import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CanonicalEventInput } from '../../../src/shared/model/event';
import { replay } from '../../../src/shared/replay/fold';
import { fateCountsAt } from '../../../src/shared/replay/fate-counts';
import { fatesAt, modelView } from '../../../src/shared/replay/view';
import { log, text } from './build';

/**
 * Random sessions are built by driving a deliberately naive reference model (a plain array of ids)
 * with abstract choices; the replay's views — computed from snapshots, at random access — must equal
 * the reference at every request.
 */
type Choice =
  | { t: 'append' }
  | { t: 'replace'; a: number; b: number; kind: 'checkpoint' | 'pruned' | 'plain' }
  | { t: 'insert'; at: number }
  | { t: 'mask'; at: number; masked: boolean }
  | { t: 'drop'; at: number }
  | { t: 'restore'; at: number }
  | { t: 'request' };

const frac = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });
const choice: fc.Arbitrary<Choice> = fc.oneof(
  { weight: 5, arbitrary: fc.constant({ t: 'append' as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('replace' as const),
      a: frac,
      b: frac,
      kind: fc.constantFrom('checkpoint' as const, 'pruned' as const, 'plain' as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('insert' as const), at: frac }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('mask' as const), at: frac, masked: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('drop' as const), at: frac }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('restore' as const), at: frac }) },
  { weight: 3, arbitrary: fc.constant({ t: 'request' as const }) },
);

interface Built {
  bodies: CanonicalEventInput[];
  /** The reference surface at each request: ids and masked flags. */
  expected: { ids: string[]; masked: boolean[] }[];
}

function build(choices: readonly Choice[]): Built {
  const bodies: CanonicalEventInput[] = [];
  const expected: Built['expected'] = [];
  let surface: string[] = [];
  const masked = new Set<string>();
  const dropped: string[] = [];
  let n = 0;
  const pick = <T>(xs: readonly T[], f: number): T | undefined => xs[Math.floor(f * xs.length)];
  for (const c of choices) {
    switch (c.t) {
      case 'append': {
        const id = `i${n++}`;
        bodies.push({ kind: 'item', item: { id, role: n % 2 ? 'user' : 'assistant', blocks: text(id) } });
        surface.push(id);
        break;
      }
      case 'replace': {
        if (surface.length === 0) break;
        let a = Math.floor(c.a * surface.length);
        let b = Math.floor(c.b * surface.length);
        if (a > b) [a, b] = [b, a];
        const covered = surface.slice(a, b + 1);
        const id = `r${n++}`;
        const derivation =
          c.kind === 'checkpoint'
            ? { kind: 'checkpoint' as const, compactionId: `K${id}`, covers: covered }
            : c.kind === 'pruned'
              ? { kind: 'pruned' as const, of: covered[0] as string, head: 1, tail: 1, omitted: 3 }
              : undefined;
        bodies.push({
          kind: 'item',
          op: { op: 'replace', from: covered[0] as string, to: covered[covered.length - 1] as string },
          item: { id, role: 'user', blocks: text(id), derivation },
        });
        for (const x of covered) masked.delete(x);
        dropped.push(...covered);
        surface = [...surface.slice(0, a), id, ...surface.slice(b + 1)];
        break;
      }
      case 'insert': {
        const before = pick(surface, c.at);
        if (!before) break;
        const id = `n${n++}`;
        bodies.push({ kind: 'item', op: { op: 'insert', before }, item: { id, role: 'user', blocks: text(id) } });
        surface.splice(surface.indexOf(before), 0, id);
        break;
      }
      case 'mask': {
        const id = pick(surface, c.at);
        if (!id) break;
        bodies.push({ kind: 'mask', items: [id], masked: c.masked, reference: text(`[ref ${id}]`) });
        if (c.masked) masked.add(id);
        else masked.delete(id);
        break;
      }
      case 'drop': {
        const id = pick(surface, c.at);
        if (!id) break;
        bodies.push({ kind: 'drop', items: [id], reason: 'truncation' });
        surface = surface.filter((x) => x !== id);
        masked.delete(id);
        dropped.push(id);
        break;
      }
      case 'restore': {
        // Restore puts an item back at its old position: only safe to model when no replacement took that position.
        const id = pick(dropped, c.at);
        // Only items taken off by a drop event; a replaced item's position belongs to its replacement.
        if (!id || !bodies.some((b) => b.kind === 'drop' && b.items.includes(id))) break;
        const order = bodies.flatMap((b) => (b.kind === 'item' ? [b.item.id] : []));
        bodies.push({ kind: 'restore', items: [id] });
        dropped.splice(dropped.indexOf(id), 1);
        // Without replacements, the surface order is creation order (inserts aside; see the test that allows them).
        const rank = (x: string) => order.indexOf(x);
        surface = [...surface, id].sort((p, q) => rank(p) - rank(q));
        break;
      }
      case 'request':
        bodies.push({ kind: 'request', id: `q${expected.length}` });
        expected.push({ ids: [...surface], masked: surface.map((x) => masked.has(x)) });
        break;
    }
  }
  return { bodies, expected };
}

/** Sessions whose order is fully determined by appends, replaces and drops (restore and insert have their own tests). */
const simpleChoice = choice.filter((c) => c.t !== 'restore' && c.t !== 'insert');

describe('replay properties', () => {
  it('views at random access equal a naive reference model at every request', () => {
    fc.assert(
      fc.property(fc.array(simpleChoice, { maxLength: 300 }), (choices) => {
        const { bodies, expected } = build(choices);
        const state = replay(log(bodies));
        expect(state.requests.length).toBe(expected.length);
        // Visit the requests in a scrambled order: random access must not depend on stepping.
        const order = expected.map((_, i) => i).sort((a, b) => ((a * 7919) % 101) - ((b * 7919) % 101));
        for (const i of order) {
          const v = modelView(state, i);
          expect(v?.items.map((x) => x.id)).toEqual(expected[i]?.ids);
          expect(v?.items.map((x) => x.rendition === 'masked')).toEqual(expected[i]?.masked);
        }
        expect(state.diagnostics).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it('views asked in order, then every other one backwards, equal the reference on long sessions (the cursor modelView keeps)', () => {
    fc.assert(
      fc.property(fc.array(simpleChoice, { minLength: 300, maxLength: 900 }), (choices) => {
        const { bodies, expected } = build(choices);
        const state = replay(log(bodies));
        const inOrder = expected.map((_, i) => i);
        const backwards = inOrder.filter((i) => i % 2 === 0).reverse();
        // Then a far jump forward from the first request to the last: more ops than a snapshot rebuild.
        for (const i of [...inOrder, ...backwards, 0, expected.length - 1]) {
          const v = modelView(state, i);
          expect(v?.items.map((x) => x.id)).toEqual(expected[i]?.ids);
          expect(v?.items.map((x) => x.rendition === 'masked')).toEqual(expected[i]?.masked);
        }
      }),
      { numRuns: 40 },
    );
  });

  it('a surface cursor starts again from a snapshot for a jump so far ahead that one is nearer, and only then', () => {
    const bodies: CanonicalEventInput[] = [];
    for (let i = 0; i < 600; i++)
      bodies.push({ kind: 'item', item: { id: `i${i}`, role: 'user', blocks: text(`t${i}`) } }, { kind: 'request', id: `q${i}` });
    const state = replay(log(bodies));
    let resets = 0;
    const cursor = state.surface.cursor({ reset: () => resets++, before: () => undefined });
    cursor(state.requests[0]?.seq as number);
    expect(resets).toBe(1);
    for (let i = 1; i <= 100; i++) cursor(state.requests[i]?.seq as number);
    expect(resets).toBe(1);
    // 400 appends ahead of a surface of about 100 items: more than twice the surface, so a snapshot.
    const far = state.requests[500]?.seq as number;
    expect(cursor(far).ids).toEqual(state.surface.at(far).ids);
    expect(resets).toBe(2);
  });

  it('with inserts and restores, views still equal the reference model', () => {
    fc.assert(
      fc.property(
        fc.array(
          choice.filter((c) => c.t !== 'replace'),
          { maxLength: 200 },
        ),
        (choices) => {
          const { bodies, expected } = build(choices);
          const state = replay(log(bodies));
          // Inserted items sort between their neighbours; restored ones return to their key. Compare as sets and check order of appended items.
          for (let i = 0; i < expected.length; i++) {
            const got = modelView(state, i)?.items.map((x) => x.id) ?? [];
            expect([...got].sort()).toEqual([...(expected[i]?.ids ?? [])].sort());
            const appended = got.filter((x) => x.startsWith('i'));
            expect(appended).toEqual([...appended].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1))));
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('an insert does not take the key of a dropped item, so restoring it brings it back (found by the property above)', () => {
    // append i0; insert n1 before i0; drop n1; insert n2 before i0; restore n1 — n2 used to get n1's key, and n1 stayed out.
    const { bodies, expected } = build([
      { t: 'append' },
      { t: 'insert', at: 0 },
      { t: 'drop', at: 0 },
      { t: 'insert', at: 0 },
      { t: 'restore', at: 0 },
      { t: 'request' },
    ]);
    const state = replay(log(bodies));
    expect([...(modelView(state, 0)?.items.map((x) => x.id) ?? [])].sort()).toEqual([...(expected[0]?.ids ?? [])].sort());
    expect(expected[0]?.ids.sort()).toEqual(['i0', 'n1', 'n2']);
  });

  it('a restored item whose key a replacement took comes back next to it', () => {
    const bodies: CanonicalEventInput[] = [
      { kind: 'item', item: { id: 'a', role: 'user', blocks: text('a') } },
      { kind: 'item', item: { id: 'b', role: 'assistant', blocks: text('b') } },
      { kind: 'item', op: { op: 'replace', from: 'a', to: 'a' }, item: { id: 'r', role: 'user', blocks: text('r') } },
      { kind: 'restore', items: ['a'] },
      { kind: 'request', id: 'q' },
    ];
    const state = replay(log(bodies));
    expect(modelView(state, 0)?.items.map((x) => x.id)).toEqual(['r', 'a', 'b']);
  });

  it('a surface cursor gives the surface random access gives, for seqs in any order (restores and inserts included)', () => {
    fc.assert(
      fc.property(fc.array(choice, { maxLength: 200 }), fc.array(frac, { maxLength: 40 }), (choices, jumps) => {
        const { bodies } = build(choices);
        const state = replay(log(bodies));
        const cursor = state.surface.cursor();
        // Every request in order (the pass the cursor is for), then seqs anywhere, backwards too.
        const seqs = [...state.requests.map((r) => r.seq), ...jumps.map((f) => Math.floor(f * (bodies.length + 1)))];
        for (const seq of seqs) {
          const want = state.surface.at(seq);
          const got = cursor(seq);
          expect(got.ids).toEqual(want.ids);
          expect(got.keys).toEqual(want.keys);
          expect([...got.masked].sort()).toEqual([...want.masked].sort());
        }
      }),
      { numRuns: 150 },
    );
  });

  it('the fate count table agrees with the fates listed at every request', () => {
    fc.assert(
      fc.property(fc.array(choice, { maxLength: 200 }), (choices) => {
        const { bodies } = build(choices);
        const state = replay(log(bodies));
        state.requests.forEach((_, i) => {
          const counted: Record<string, number> = { verbatim: 0, masked: 0, pruned: 0, summarised: 0, dropped: 0, reinjected: 0 };
          for (const f of fatesAt(state, i)) counted[f.fate.fate] = (counted[f.fate.fate] ?? 0) + 1;
          expect(fateCountsAt(state, i)).toEqual(counted);
        });
      }),
      { numRuns: 150 },
    );
  });

  it('replay is deterministic', () => {
    fc.assert(
      fc.property(fc.array(choice, { maxLength: 200 }), (choices) => {
        const events = log(build(choices).bodies);
        const a = replay(events);
        const b = replay(events);
        const views = (s: typeof a) => s.requests.map((_, i) => modelView(s, i));
        expect(views(a)).toEqual(views(b));
        expect(a.items.map((x) => x.fates)).toEqual(b.items.map((x) => x.fates));
      }),
      { numRuns: 100 },
    );
  });

  it('replaying a prefix gives a state the full replay passes through', () => {
    fc.assert(
      fc.property(fc.array(choice, { minLength: 1, maxLength: 200 }), frac, (choices, cut) => {
        const events = log(build(choices).bodies);
        if (events.length === 0) return;
        const k = Math.floor(cut * events.length);
        const full = replay(events);
        const prefix = replay(events, { untilSeq: k });
        const past = full.surface.at(k + 1);
        expect(prefix.surface.live.ids).toEqual(past.ids);
        expect([...prefix.surface.live.masked].sort()).toEqual([...past.masked].sort());
        expect(prefix.requests.map((r) => r.id)).toEqual(full.requests.filter((r) => r.seq <= k).map((r) => r.id));
      }),
      { numRuns: 150 },
    );
  });

  it('every view item cites seqs that exist', () => {
    fc.assert(
      fc.property(fc.array(choice, { maxLength: 200 }), (choices) => {
        const events = log(build(choices).bodies);
        const state = replay(events);
        for (let i = 0; i < state.requests.length; i++) {
          for (const item of modelView(state, i)?.items ?? []) {
            expect(item.provenance.length).toBeGreaterThan(0);
            for (const s of item.provenance) expect(events[s]?.seq).toBe(s);
          }
        }
      }),
      { numRuns: 100 },
    );
  });
});
