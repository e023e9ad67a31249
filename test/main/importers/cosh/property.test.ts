import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { coshImporter } from '../../../../src/main/importers/cosh';
import { CanonSurface } from '../../../../src/main/importers/cosh/surface';
import type { EventBody } from '../../../../src/shared/model/event';
import { replay } from '../../../../src/shared/replay/fold';
import { type Emitted, asLog } from '../rind/helpers';
import { A, CP, Log, TC, TR, U, importCosh } from './helpers';

describe('the surface simulation agrees with Palimpsest’s replay', () => {
  type Op =
    | { t: 'append' }
    | { t: 'insert'; at: number }
    | { t: 'replace'; at: number }
    | { t: 'drop'; at: number }
    | { t: 'restore'; at: number }
    | { t: 'mask'; at: number; on: boolean };
  const op: fc.Arbitrary<Op> = fc.oneof(
    fc.constant({ t: 'append' as const }),
    fc.record({ t: fc.constant('insert' as const), at: fc.nat() }),
    fc.record({ t: fc.constant('replace' as const), at: fc.nat() }),
    fc.record({ t: fc.constant('drop' as const), at: fc.nat() }),
    fc.record({ t: fc.constant('restore' as const), at: fc.nat() }),
    fc.record({ t: fc.constant('mask' as const), at: fc.nat(), on: fc.boolean() }),
  );

  it('random append / insert / replace / drop / restore / mask sequences', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const sim = new CanonSurface();
        const events: Emitted[] = [];
        const all: string[] = [];
        let n = 0;
        const push = (e: EventBody): void => {
          events.push({ ...e, seq: events.length, line: events.length + 1, file: 0 } as Emitted);
        };
        const item = (id: string, op: Extract<EventBody, { kind: 'item' }>['op']): void =>
          push({ kind: 'item', item: { id, role: 'user', blocks: [] }, op });
        for (const o of ops) {
          const live = sim.order;
          const pick = (at: number): string | undefined => live[at % Math.max(1, live.length)];
          switch (o.t) {
            case 'append': {
              const id = `i${n++}`;
              sim.append(id);
              item(id, { op: 'append' });
              all.push(id);
              break;
            }
            case 'insert': {
              const before = pick(o.at);
              if (!before) break;
              const id = `i${n++}`;
              sim.insertBefore(id, before);
              item(id, { op: 'insert', before });
              all.push(id);
              break;
            }
            case 'replace': {
              const old = pick(o.at);
              if (!old) break;
              const id = `i${n++}`;
              sim.replace(id, old, old);
              item(id, { op: 'replace', from: old, to: old });
              all.push(id);
              break;
            }
            case 'drop': {
              const id = pick(o.at);
              if (!id) break;
              sim.remove(id);
              push({ kind: 'drop', items: [id], reason: 'other' });
              break;
            }
            case 'restore': {
              const gone = all.filter((x) => sim.canRestore(x));
              const id = gone[o.at % Math.max(1, gone.length)];
              if (!id) break;
              sim.restore(id);
              push({ kind: 'restore', items: [id] });
              break;
            }
            case 'mask': {
              const id = pick(o.at);
              if (!id) break;
              sim.mask(id, o.on);
              push({ kind: 'mask', items: [id], masked: o.on });
              break;
            }
          }
        }
        const state = replay(asLog(events));
        const s = state.surface.live;
        const idOf = (i: number): string => state.items[i]?.id ?? '?';
        expect(s.ids.map(idOf)).toEqual([...sim.order]);
        expect([...s.masked].map(idOf).sort()).toEqual([...sim.masked].sort());
        expect(state.diagnostics).toEqual([]);
      }),
      { numRuns: 400 },
    );
  });
});

/**
 * An independent oracle of cosh's model view (mod.rs @175f4e8e `build_messages` over a replayed
 * `ContextManagerState`), written straight from the Rust, to check the importer's canonical
 * events end to end through Palimpsest's replay.
 */
interface OItem {
  id: number;
  kind: string;
  covered: [number, number][];
}
function oracle(items: OItem[], hidden: Set<number>, masked: Set<number>, visibleFrom: number | null): string[] {
  const vf = visibleFrom ?? 0;
  const cp = [...items].reverse().find((i) => i.kind === 'Compaction' && i.id >= vf && !hidden.has(i.id));
  const cover = cp?.covered ?? [];
  const isHidden = (i: OItem): boolean => i.id < vf || hidden.has(i.id) || cover.some(([a, b]) => a <= i.id && i.id <= b);
  const visible = items.filter((i) => !isHidden(i) && i.kind !== 'Error');
  const ordered = [...visible.filter((i) => i.kind === 'Compaction'), ...visible.filter((i) => i.kind !== 'Compaction')];
  let k = 0;
  while (k < ordered.length && ordered[k]?.kind === 'ToolResult') k++;
  return ordered.slice(k).map((i) => `${i.id}${i.kind === 'ToolResult' && masked.has(i.id) ? '*' : ''}`);
}

describe('random cosh histories: Palimpsest’s view equals cosh’s composition', () => {
  // Histories cosh's own rules can produce: items appended (and re-upserted in place), raw items
  // hidden (cosh never shows a hidden live item again), results masked and unmasked, items removed,
  // and checkpoints whose source is the visible view minus a raw tail, carrying the ranges of the
  // checkpoints they fold (commit_summary_to_source).
  type Step =
    | { t: 'new'; kind: 'User' | 'Assistant' | 'ToolCall' | 'ToolResult' | 'Error' }
    | { t: 'again'; at: number }
    | { t: 'hide'; at: number }
    | { t: 'mask'; at: number; on: boolean }
    | { t: 'compact'; keep: number }
    | { t: 'remove'; at: number };
  const step: fc.Arbitrary<Step> = fc.oneof(
    {
      weight: 8,
      arbitrary: fc.record({
        t: fc.constant('new' as const),
        kind: fc.constantFrom('User' as const, 'Assistant' as const, 'ToolCall' as const, 'ToolResult' as const, 'Error' as const),
      }),
    },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('again' as const), at: fc.nat() }) },
    { weight: 2, arbitrary: fc.record({ t: fc.constant('hide' as const), at: fc.nat() }) },
    { weight: 2, arbitrary: fc.record({ t: fc.constant('mask' as const), at: fc.nat(), on: fc.boolean() }) },
    { weight: 2, arbitrary: fc.record({ t: fc.constant('compact' as const), keep: fc.nat({ max: 4 }) }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('remove' as const), at: fc.nat() }) },
  );

  it('at every request, and with no divergence reported', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const B = 'b';
        const l = new Log();
        l.genesis(B);
        l.init(B);
        const items: OItem[] = [];
        const hidden = new Set<number>();
        const masked = new Set<number>();
        let next = 1;
        const expected: string[][] = [];
        let lastNew = '';
        const make = (kind: string, id: number, covered: [number, number][] = []): Record<string, unknown> => {
          switch (kind) {
            case 'User':
              return U(id, `u${id}`);
            case 'Assistant':
              return A(id, `a${id}`);
            case 'ToolCall':
              return TC(id, `c${id}`);
            case 'ToolResult':
              return TR(id, `c${id - 1}`, `r${id}`);
            case 'Compaction':
              return CP(id, `s${id}`, covered);
            default:
              return { Error: { id, content: `e${id}` } };
          }
        };
        const raw = (): OItem[] => items.filter((i) => i.kind !== 'Compaction');
        for (const s of steps) {
          switch (s.t) {
            case 'new': {
              const id = next++;
              if ((s.kind === 'Assistant' || s.kind === 'ToolCall') && lastNew !== 'Assistant' && lastNew !== 'ToolCall') {
                expected.push(oracle(items, hidden, masked, null));
              }
              lastNew = s.kind;
              items.push({ id, kind: s.kind, covered: [] });
              l.item(B, make(s.kind, id));
              break;
            }
            case 'again': {
              const it = raw()[s.at % Math.max(1, raw().length)];
              if (!it) break;
              l.item(B, make(it.kind, it.id));
              break;
            }
            case 'hide': {
              const it = raw()[s.at % Math.max(1, raw().length)];
              if (!it) break;
              hidden.add(it.id);
              l.ctx(B, { field: 'hidden', item_ids: [it.id], hidden: true });
              break;
            }
            case 'mask': {
              const it = raw()[s.at % Math.max(1, raw().length)];
              if (!it) break;
              if (s.on) masked.add(it.id);
              else masked.delete(it.id);
              l.ctx(B, { field: 'masked', item_ids: [it.id], masked: s.on });
              break;
            }
            case 'compact': {
              // The source: the visible view without its last `keep` raw items.
              const view = oracle(items, hidden, masked, null).map((x) => Number.parseInt(x, 10));
              const rawInView = view.filter((id) => items.find((i) => i.id === id)?.kind !== 'Compaction');
              const tail = new Set(rawInView.slice(Math.max(0, rawInView.length - s.keep)));
              const source = view.filter((id) => !tail.has(id));
              if (source.length === 0) break;
              const all = [...source];
              for (const id of source)
                for (const [a, b] of items.find((i) => i.id === id)?.covered ?? []) for (let x = a; x <= b; x++) all.push(x);
              const sorted = [...new Set(all)].sort((a, b) => a - b);
              const covered: [number, number][] = [];
              for (const x of sorted) {
                const last = covered[covered.length - 1];
                if (last && last[1] + 1 === x) last[1] = x;
                else covered.push([x, x]);
              }
              const id = next++;
              for (const x of source) masked.delete(x);
              items.push({ id, kind: 'Compaction', covered });
              lastNew = 'Compaction';
              l.item(B, make('Compaction', id, covered));
              if (source.some((x) => items.find((i) => i.id === x)?.kind === 'ToolResult'))
                l.ctx(B, { field: 'masked', item_ids: source, masked: false });
              break;
            }
            case 'remove': {
              const it = raw()[s.at % Math.max(1, raw().length)];
              if (!it) break;
              items.splice(items.indexOf(it), 1);
              for (const h of [...hidden]) if (!items.some((i) => i.id === h)) hidden.delete(h);
              for (const m of [...masked]) if (!items.some((i) => i.id === m && i.kind === 'ToolResult')) masked.delete(m);
              l.ctx(B, { field: 'item_remove', item_id: it.id });
              break;
            }
          }
          // Each step is its own save: no reordering inside a save.
          l.ctx(B, { field: 'last_tool_set', value: null });
        }
        const r = importCosh(l.lines);
        expect(r.rules()).not.toContain('COSH_VIEW_DIVERGES');
        // Canonical ids of later versions carry a suffix (`5~2`); cosh's id is the part before it.
        expect(r.views(B).map((v) => v.map((x) => x.replace(/~\d+/, '')))).toEqual(expected);
        expect(r.state(B).diagnostics).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});

describe('cosh bad input never throws', () => {
  const l = new Log();
  l.genesis('b');
  l.init('b', { todo: { groups: [] }, todo_after_item_id: 0 });
  l.item('b', U(1, 'a'));
  l.item('b', TC(2, 'c'));
  l.item('b', TR(3, 'c', 'r'));
  l.ctx('b', { field: 'masked', item_ids: [3], masked: true });
  l.item('b', CP(4, 's', [[1, 3]]));
  l.ctx('b', { field: 'map_reduce', value: { window: 1, source_item_ids: [4], segments: [{ ordinal: 0, item_ids: [4], summary: null }] } });
  l.ev('k', {
    type: 'fork',
    parent: { branch_id: 'b', event_id: 7, selection: { kind: 'through_message', message_id: 'm' } },
    metadata: { session_id: 'k', title: 't', title_generated: false, created_at: 1, cwd: '/' },
  });
  l.ev('b', { type: 'revert', target: { branch_id: 'b', event_id: 8, selection: { kind: 'at_event' } }, undo_label: 'v1' });
  l.item('b', A(5, 'x'));
  const base = l.lines;
  const anyValue = fc.oneof(
    fc.constant(undefined),
    fc.constant(null),
    fc.integer({ min: -3, max: 20 }),
    fc.string({ maxLength: 8 }),
    fc.boolean(),
    fc.array(fc.anything(), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 6 }), fc.anything(), { maxKeys: 3 }),
  );
  const paths = fc.constantFrom(
    ['event_id'],
    ['branch_id'],
    ['schema_version'],
    ['delta'],
    ['delta', 'type'],
    ['delta', 'change'],
    ['delta', 'change', 'field'],
    ['delta', 'change', 'item'],
    ['delta', 'change', 'value'],
    ['delta', 'target'],
    ['delta', 'parent', 'selection'],
    ['delta', 'change', 'item_ids'],
  );

  it('mutated lines: no throw, every line leaves an event', () => {
    fc.assert(
      fc.property(fc.nat(), paths, anyValue, (i, path, value) => {
        const lines = base.map((x) => structuredClone(x));
        let o = lines[i % lines.length] as Record<string, unknown>;
        for (const k of path.slice(0, -1)) {
          const nxt = o[k];
          if (typeof nxt !== 'object' || nxt === null) return;
          o = nxt as Record<string, unknown>;
        }
        o[path[path.length - 1] as string] = value;
        const r = importCosh(lines);
        expect(new Set(r.events.map((e) => e.line)).size).toBe(lines.length);
      }),
      { numRuns: 400 },
    );
  });

  it('sniffs cosh lines only; rehydrates items from their line', () => {
    expect(coshImporter.sniff(base.slice(0, 5), '/d/session-b.jsonl')).toBeGreaterThan(0.9);
    expect(coshImporter.sniff([{ role: 'user', id: 'x', ts: 't' }], '/x.jsonl')).toBe(0);
    const item = {
      kind: 'item' as const,
      op: { op: 'append' as const },
      item: { id: '1', role: 'user' as const, blocks: [{ type: 'text' as const, text: 'x', elided: 5 }] },
    };
    expect(coshImporter.rehydrate(item, base[2] as Record<string, unknown>)).toEqual({
      ...item,
      item: { ...item.item, blocks: [{ type: 'text', text: 'a' }] },
    });
    expect(coshImporter.rehydrate(item, base[0] as Record<string, unknown>)).toBeNull();
  });
});
