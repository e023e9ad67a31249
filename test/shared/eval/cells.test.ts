import { describe, expect, it } from 'vitest';
import {
  cellKey,
  expandCells,
  inShard,
  parseShard,
  shardOf,
  type ResolvedTrace,
  type StrategyLookup,
} from '../../../src/shared/eval/cells';
import { parseSpec, type EvalSpec } from '../../../src/shared/eval/spec';

const lookup: StrategyLookup = (id) =>
  ({ truncate: { needsModel: false }, extractive: { needsModel: false }, 'one-shot': { needsModel: true }, layered: { needsModel: true } })[
    id
  ];

function spec(over: Record<string, unknown> = {}): EvalSpec {
  const r = parseSpec(
    {
      name: 's',
      traces: [{ path: 'a.jsonl' }, { path: 'dir/*.jsonl' }],
      strategies: [{ id: 'truncate' }, { id: 'one-shot' }],
      models: ['none', { provider: 'mock', model: 'm', label: 'mock:m' }, 'openai:gpt'],
      repeats: 2,
      faults: [{ name: 'slow', steps: [{ reply: { content: [] } }] }],
      ...over,
    },
    'spec.yaml',
  );
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

const traces: ResolvedTrace[] = [
  { trace: 0, path: 'a.jsonl', targets: [{ compaction: 'c1' }] },
  { trace: 1, path: 'dir/b.jsonl', targets: [{ compaction: 'x' }, { request: 3 }] },
];

describe('expandCells', () => {
  const r = expandCells(spec(), traces, lookup);
  if (!r.ok) throw new Error(r.error);
  const cells = r.value;

  it('runs a model-free strategy once per target with model "none", whatever the models and repeats', () => {
    const t = cells.filter((c) => c.strategy.id === 'truncate');
    expect(t).toHaveLength(3);
    expect(t.every((c) => c.model.label === 'none' && c.repeat.index === 0 && c.repeat.of === 1 && c.fault === null)).toBe(true);
  });

  it('runs a model strategy per target × model (not "none") × repeat, plus one cell per fault on mock models', () => {
    const o = cells.filter((c) => c.strategy.id === 'one-shot');
    // 3 targets × (mock:m clean + mock:m slow + openai:gpt clean) × 2 repeats
    expect(o).toHaveLength(3 * 3 * 2);
    expect(o.some((c) => c.model.label === 'none')).toBe(false);
    expect(o.filter((c) => c.fault !== null).every((c) => c.model.label === 'mock:m' && c.fault?.name === 'slow')).toBe(true);
  });

  it('puts repeats outermost, so a run stopped early has covered every cell once', () => {
    const firstRepeat1 = cells.findIndex((c) => c.repeat.index === 1);
    expect(cells.slice(0, firstRepeat1).every((c) => c.repeat.index === 0)).toBe(true);
    expect(cells.slice(firstRepeat1).every((c) => c.repeat.index === 1)).toBe(true);
    expect(cells.slice(0, firstRepeat1)).toHaveLength(3 + 9);
  });

  it('gives every cell a distinct key', () => {
    expect(new Set(cells.map((c) => c.key)).size).toBe(cells.length);
  });

  it('says when a strategy is unknown or needs a model the spec does not list', () => {
    const bad = expandCells(spec({ strategies: [{ id: 'nope' }, { id: 'layered' }], models: ['none'], faults: [] }), traces, lookup);
    expect(bad).toEqual({
      ok: false,
      error: 'strategies[0]: unknown strategy "nope"\nlayered needs a model, and the spec lists only "none"',
    });
  });

  it('runs a file reached by two trace entries once', () => {
    const twice = expandCells(
      spec({ strategies: [{ id: 'truncate' }] }),
      [traces[0] as ResolvedTrace, { ...(traces[0] as ResolvedTrace), trace: 1 }],
      lookup,
    );
    expect(twice.ok && twice.value).toHaveLength(1);
  });
});

describe('cellKey', () => {
  const base = {
    trace: 'a.jsonl',
    target: { compaction: 'c1' },
    strategy: 'one-shot',
    options: { b: 1, a: { y: 2, x: 1 } },
    model: 'mock:m',
    repeat: 0,
  };

  it('is stable: option key order does not matter, every part does', () => {
    expect(cellKey(base)).toBe(cellKey({ ...base, options: { a: { x: 1, y: 2 }, b: 1 } }));
    for (const change of [
      { trace: 'b.jsonl' },
      { target: { request: 1 } },
      { strategy: 'layered' },
      { options: { b: 2 } },
      { model: 'none' },
      { repeat: 1 },
      { fault: 'slow' },
    ]) {
      expect(cellKey({ ...base, ...change })).not.toBe(cellKey(base));
    }
  });

  it('has a fixed format (results files depend on it)', () => {
    expect(cellKey(base)).toBe('["cell/1","a.jsonl","compaction:c1","one-shot",{"a":{"x":1,"y":2},"b":1},"mock:m",null,0]');
  });
});

describe('shards', () => {
  const keys = Array.from({ length: 1000 }, (_, i) =>
    cellKey({ trace: `t${i % 7}.jsonl`, target: { request: i }, strategy: 's', options: {}, model: 'none', repeat: i % 3 }),
  );

  it('the union of all shards is every cell exactly once', () => {
    for (const n of [1, 2, 3, 8]) {
      const seen = new Map<string, number>();
      for (let k = 1; k <= n; k++) for (const key of keys) if (inShard(key, { k, n })) seen.set(key, (seen.get(key) ?? 0) + 1);
      expect(seen.size).toBe(keys.length);
      expect([...seen.values()].every((v) => v === 1)).toBe(true);
    }
  });

  it('depends on the key, not on its position, and spreads keys evenly', () => {
    expect(shardOf(keys[5] as string, 4)).toBe(shardOf(keys[5] as string, 4));
    expect(
      [...keys]
        .reverse()
        .map((k) => shardOf(k, 4))
        .reverse(),
    ).toEqual(keys.map((k) => shardOf(k, 4)));
    const counts = [1, 2, 3, 4].map((k) => keys.filter((key) => shardOf(key, 4) === k).length);
    for (const c of counts) expect(c).toBeGreaterThan(200);
    expect(
      shardOf(cellKey({ trace: 'a.jsonl', target: { compaction: 'c1' }, strategy: 'truncate', options: {}, model: 'none', repeat: 0 }), 5),
    ).toBe(shardOf('["cell/1","a.jsonl","compaction:c1","truncate",{},"none",null,0]', 5));
  });

  it('parses --shard k/n and refuses the rest', () => {
    expect(parseShard('2/4')).toEqual({ ok: true, value: { k: 2, n: 4 } });
    expect(parseShard(' 1 / 1 ')).toEqual({ ok: true, value: { k: 1, n: 1 } });
    for (const bad of ['0/4', '5/4', '2', 'a/b', '2/0']) expect(parseShard(bad).ok).toBe(false);
    expect(() => shardOf('k', 0)).toThrow(RangeError);
  });
});
