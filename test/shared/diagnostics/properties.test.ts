import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RULES, diagnose } from '../../../src/shared/diagnostics';
import { buildContext, INTERNAL_RULE_ERROR } from '../../../src/shared/diagnostics/runner';
import type { Block } from '../../../src/shared/model/content';
import type { CanonicalEventInput } from '../../../src/shared/model/event';
import { replay } from '../../../src/shared/replay/fold';
import { log, quarterChars } from './helpers';

/**
 * Random canonical sessions — every event kind, references to items and seqs that may or may not
 * exist, brackets left open, segments that cut and overlap, branches — must never make a rule
 * throw, and every finding must be well formed.
 */

const ITEM_IDS = ['u1', 'u2', 'a1', 'a2', 't1', 't2', 'k1', 'k2', 'm1', 'p1', 'sys', 'ghost'];
const CALL_IDS = ['c1', 'c2', 'c3'];
const CMP_IDS = ['cmp1', 'cmp2', 'cmp3', ''];
const REQ_IDS = ['r1', 'r2', 'r3', 'r4'];

const pick = <T>(xs: readonly T[]) => fc.constantFrom(...xs);
const ids = fc.uniqueArray(pick(ITEM_IDS), { maxLength: 5 });
const nat = fc.nat({ max: 400_000 });
const finish = fc.option(
  fc.record({
    raw: fc.constantFrom('end_turn', 'max_tokens', 'x'),
    reason: pick(['stop', 'tool_calls', 'length', 'refusal', 'pause', 'error', 'cancelled', 'unknown'] as const),
  }),
  { nil: undefined },
);
const usage = fc.option(
  fc.record({
    input: fc.option(nat, { nil: undefined }),
    output: fc.option(nat, { nil: undefined }),
    cacheRead: fc.option(nat, { nil: undefined }),
    cacheWrite: fc.option(nat, { nil: undefined }),
    context: fc.option(nat, { nil: undefined }),
  }),
  { nil: undefined },
);
const route = fc.option(
  fc.record({
    model: fc.option(pick(['m1', 'm2']), { nil: undefined }),
    window: fc.option(fc.integer({ min: 1, max: 300_000 }), { nil: undefined }),
    maxOutput: fc.option(fc.integer({ min: 1, max: 10_000 }), { nil: undefined }),
  }),
  { nil: undefined },
);
const policy = fc.option(
  fc.record({
    window: fc.option(fc.integer({ min: 1, max: 300_000 }), { nil: undefined }),
    triggerRatio: fc.option(fc.double({ min: 0.01, max: 1, noNaN: true }), { nil: undefined }),
    triggerTokens: fc.option(fc.integer({ min: 1, max: 300_000 }), { nil: undefined }),
    rawTailRatio: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
    rawTailTokens: fc.option(fc.nat({ max: 100_000 }), { nil: undefined }),
    rawTailMessages: fc.option(fc.nat({ max: 20 }), { nil: undefined }),
    outputReserve: fc.option(fc.nat({ max: 20_000 }), { nil: undefined }),
    headroom: fc.option(fc.nat({ max: 20_000 }), { nil: undefined }),
    breaker: fc.option(fc.record({ failures: fc.integer({ min: 1, max: 4 }), cooldownTurns: fc.nat({ max: 5 }) }), { nil: undefined }),
  }),
  { nil: undefined },
);
const texts = fc.oneof(
  fc.constant(''),
  fc.constant('   '),
  fc.constant('{"session_intent":"x","files_touched":[]}'),
  fc.constant('{ broken'),
  fc.constant('## A\nx\n## A\ny'),
  fc.string({ maxLength: 30 }),
  fc.constant('x'.repeat(600)),
);
const block: fc.Arbitrary<Block> = fc.oneof(
  texts.map((t) => ({ type: 'text' as const, text: t })),
  fc.record({ type: fc.constant('tool_call' as const), id: pick(CALL_IDS), name: fc.constant('bash'), input: texts }),
  fc.record({
    type: fc.constant('tool_result' as const),
    callId: pick(CALL_IDS),
    content: fc.array(
      texts.map((t) => ({ type: 'text' as const, text: t })),
      { maxLength: 2 },
    ),
  }),
  fc.record({
    type: fc.constant('opaque' as const),
    label: fc.constant('enc'),
    chars: fc.option(fc.nat({ max: 100 }), { nil: undefined }),
  }),
  fc.record({ type: fc.constant('reasoning' as const), text: texts }),
  fc.record({ type: fc.constant('image' as const) }),
);
const blocks = fc.array(block, { maxLength: 3 });
const segments = fc.array(
  fc.record({ ordinal: fc.nat({ max: 6 }), items: fc.array(pick([...ITEM_IDS, 't2@0-10']), { minLength: 1, maxLength: 4 }) }),
  { maxLength: 4 },
);
const derivation = fc.option(
  fc.oneof(
    fc.record({
      kind: fc.constant('checkpoint' as const),
      compactionId: pick(CMP_IDS),
      covers: ids,
      part: pick(['summary', 'continuation', 'handoff'] as const),
    }),
    fc.record({
      kind: fc.constant('pruned' as const),
      of: pick(ITEM_IDS),
      head: fc.nat({ max: 50 }),
      tail: fc.nat({ max: 50 }),
      omitted: fc.nat({ max: 500 }),
    }),
    fc.record({ kind: fc.constant('marker' as const), of: ids }),
    fc.record({ kind: fc.constant('reinjected' as const), of: ids }),
  ),
  { nil: undefined },
);
const op = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ op: 'append' as const }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('replace' as const), from: pick(ITEM_IDS), to: pick(ITEM_IDS) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('insert' as const), before: pick(ITEM_IDS) }) },
  { weight: 1, arbitrary: fc.constant({ op: 'extend' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'log' as const }) },
);
const seqs = fc.array(fc.nat({ max: 80 }), { maxLength: 5 });
const branch = fc.option(pick(['main', 'b']), { nil: undefined });

/** One event; `seq` refs are clamped to earlier events when the log is built (forks must point back). */
const event: fc.Arbitrary<CanonicalEventInput> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('item' as const),
      item: fc.record({
        id: pick(ITEM_IDS),
        role: pick(['system', 'user', 'assistant', 'tool'] as const),
        blocks,
        meta: fc.option(fc.boolean(), { nil: undefined }),
        derivation,
        origin: fc.option(pick(['todo', 'compaction']), { nil: undefined }),
      }),
      op,
      sources: fc.option(seqs, { nil: undefined }),
      branch,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('header' as const),
      system: fc.option(fc.oneof(fc.constant(null), fc.constant([] as Block[]), blocks), { nil: undefined }),
      route,
      branch,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('mask' as const),
      items: fc.array(pick(ITEM_IDS), { minLength: 1, maxLength: 2 }),
      masked: fc.boolean(),
      by: fc.option(pick(['model', 'harness'] as const), { nil: undefined }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('drop' as const),
      items: fc.array(pick(ITEM_IDS), { minLength: 1, maxLength: 3 }),
      reason: pick(['compaction', 'truncation', 'hidden', 'cleared', 'other'] as const),
      compactionId: fc.option(pick(CMP_IDS), { nil: undefined }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('restore' as const), items: fc.array(pick(ITEM_IDS), { minLength: 1, maxLength: 2 }) }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('request' as const),
      id: pick(REQ_IDS),
      purpose: pick(['agent', 'compaction', 'map', 'reduce', 'other'] as const),
      compactionId: fc.option(pick(CMP_IDS), { nil: undefined }),
      route,
      input: fc.option(fc.record({ items: ids, instruction: fc.option(fc.constant(null), { nil: undefined }) }), { nil: undefined }),
      branch,
    }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('response' as const), request: pick(REQ_IDS), finish, usage, branch }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('compaction/start' as const),
      id: pick(CMP_IDS),
      trigger: pick(['auto', 'manual', 'overflow', 'preemptive', 'reactive', 'unknown'] as const),
      policy,
      source: fc.option(ids, { nil: undefined }),
      preTokens: fc.option(nat, { nil: undefined }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('compaction/summary' as const),
      id: pick(CMP_IDS),
      summary: blocks,
      source: fc.option(ids, { nil: undefined }),
      sourceTokens: fc.option(nat, { nil: undefined }),
      finish,
      usage,
      request: fc.option(pick(REQ_IDS), { nil: undefined }),
      route,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('compaction/summary-error' as const),
      id: pick(CMP_IDS),
      error: fc.record({ code: fc.option(pick(['X', 'INCOMPLETE']), { nil: undefined }), message: fc.constant('failed') }),
      finish,
      route,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('compaction/end' as const),
      id: pick(CMP_IDS),
      outcome: pick(['committed', 'rejected', 'failed', 'fallback', 'cancelled'] as const),
      fallback: fc.option(fc.record({ kind: pick(['truncation', 'deterministic', 'other'] as const), marker: fc.boolean() }), {
        nil: undefined,
      }),
      postTokens: fc.option(nat, { nil: undefined }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('mapreduce/staging' as const),
      compactionId: pick(CMP_IDS),
      version: pick([1, 2, 3, null] as const),
      fingerprint: pick(['', 'a', 'b']),
      segments,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('mapreduce/map' as const),
      compactionId: pick(CMP_IDS),
      ordinal: fc.nat({ max: 6 }),
      status: pick(['accepted', 'rejected', 'failed'] as const),
      finish,
      request: fc.option(pick(REQ_IDS), { nil: undefined }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('mapreduce/repartition' as const),
      compactionId: pick(CMP_IDS),
      attempt: fc.integer({ min: 1, max: 5 }),
      replaces: fc.option(fc.array(fc.nat({ max: 6 }), { maxLength: 3 }), { nil: undefined }),
      segments,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('mapreduce/reduce' as const),
      compactionId: pick(CMP_IDS),
      level: fc.nat({ max: 9 }),
      inputs: fc.array(fc.nat({ max: 6 }), { maxLength: 3 }),
      final: fc.option(fc.boolean(), { nil: undefined }),
      finish,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('mapreduce/reread' as const),
      compactionId: pick(CMP_IDS),
      ranges: fc.array(fc.record({ from: pick(ITEM_IDS), to: pick(ITEM_IDS) }), { maxLength: 3 }),
      status: pick(['served', 'malformed', 'unavailable', 'oversized'] as const),
      reduction: fc.option(fc.record({ level: fc.nat({ max: 3 }), index: fc.nat({ max: 3 }) }), { nil: undefined }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('mapreduce/audit' as const),
      compactionId: pick(CMP_IDS),
      verdict: pick(['pass', 'fail'] as const),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('mapreduce/correction' as const),
      compactionId: pick(CMP_IDS),
      n: fc.integer({ min: 1, max: 4 }),
      accepted: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('todo' as const),
      todos: fc.array(fc.record({ content: fc.string({ maxLength: 5 }), status: fc.constant('pending') }), { maxLength: 2 }),
      after: fc.option(fc.option(pick(ITEM_IDS), { nil: null }), { nil: undefined }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('fork' as const),
      branch: fc.constant('b'),
      parent: fc.record({ branch: fc.constant('main'), seq: fc.nat({ max: 80 }) }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: pick(['revert', 'rollback'] as const),
      branch,
      target: fc.record({ branch: fc.option(pick(['main', 'b']), { nil: undefined }), seq: fc.nat({ max: 80 }) }),
    }) as fc.Arbitrary<CanonicalEventInput>,
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('lifecycle' as const),
      boundary: pick(['end-seed', 'process-start', 'resume', 'turn-start', 'turn-end'] as const),
      turn: fc.option(fc.nat({ max: 5 }), { nil: undefined }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('unknown' as const), type: pick(['x/y', 'turn/start']) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('record' as const), type: fc.constant('note') }) },
);

/** Keep references to events pointing backwards, as a writer must (the replay ignores the others). */
function clamp(bodies: CanonicalEventInput[]): CanonicalEventInput[] {
  return bodies.map((b, i) => {
    const back = (s: number) => (i === 0 ? 0 : s % i);
    if (b.kind === 'fork') return { ...b, parent: { ...b.parent, seq: back(b.parent.seq) } };
    if (b.kind === 'revert' || b.kind === 'rollback') return { ...b, target: { ...b.target, seq: back(b.target.seq) } };
    return b;
  });
}

const session = fc.array(event, { minLength: 1, maxLength: 70 }).map((es) => clamp([{ kind: 'session', id: 's' }, ...es]));

/**
 * Plausible sessions: a naive model of the surface drives abstract choices (tool units, answers,
 * compactions over random ranges that may cut units or the system head, masks, prunes,
 * truncations, MapReduce with random segments, lifecycle and window changes), so every rule's
 * main path runs, not only its guards.
 */
type Choice =
  | { t: 'user' }
  | { t: 'unit'; ctx: number }
  | { t: 'answer'; ctx: number }
  | {
      t: 'compact';
      a: number;
      b: number;
      trigger: 'auto' | 'manual' | 'overflow';
      finish: 'stop' | 'length' | 'none';
      outcome: 'committed' | 'rejected' | 'fallback' | 'open';
      out: number;
      src: number;
      mapreduce: boolean;
      cut: number;
    }
  | { t: 'mask'; at: number }
  | { t: 'prune'; at: number }
  | { t: 'truncate'; a: number; b: number }
  | { t: 'life'; boundary: 'end-seed' | 'process-start' | 'turn-start' }
  | { t: 'window'; w: number };

const frac = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });
const choice: fc.Arbitrary<Choice> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ t: 'user' as const }) },
  { weight: 5, arbitrary: fc.record({ t: fc.constant('unit' as const), ctx: nat }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('answer' as const), ctx: nat }) },
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant('compact' as const),
      a: frac,
      b: frac,
      trigger: pick(['auto', 'manual', 'overflow'] as const),
      finish: pick(['stop', 'length', 'none'] as const),
      outcome: pick(['committed', 'rejected', 'fallback', 'open'] as const),
      out: fc.nat({ max: 5_000 }),
      src: fc.nat({ max: 5_000 }),
      mapreduce: fc.boolean(),
      cut: frac,
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('mask' as const), at: frac }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('prune' as const), at: frac }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('truncate' as const), a: frac, b: frac }) },
  {
    weight: 1,
    arbitrary: fc.record({ t: fc.constant('life' as const), boundary: pick(['end-seed', 'process-start', 'turn-start'] as const) }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('window' as const), w: fc.integer({ min: 1_000, max: 300_000 }) }) },
);

function plausible(choices: readonly Choice[], pol: unknown): CanonicalEventInput[] {
  const out: CanonicalEventInput[] = [
    { kind: 'session', id: 's' },
    { kind: 'header', system: [], route: { model: 'm', window: 200_000 } },
    { kind: 'item', item: { id: 'sys', role: 'system', blocks: [{ type: 'text', text: 'sys' }] } },
  ];
  let surface: string[] = ['sys'];
  let n = 0;
  let c = 0;
  for (const ch of choices) {
    const at = (f: number) => surface[Math.floor(f * surface.length)];
    switch (ch.t) {
      case 'user': {
        const id = `u${n++}`;
        out.push({ kind: 'item', item: { id, role: 'user', blocks: [{ type: 'text', text: `please ${id}` }] } });
        surface.push(id);
        break;
      }
      case 'unit':
      case 'answer': {
        const k = n++;
        out.push({ kind: 'request', id: `r${k}` });
        if (ch.t === 'unit')
          out.push({
            kind: 'item',
            item: { id: `a${k}`, role: 'assistant', blocks: [{ type: 'tool_call', id: `c${k}`, name: 'bash', input: '{}' }] },
          });
        else out.push({ kind: 'item', item: { id: `a${k}`, role: 'assistant', blocks: [{ type: 'text', text: 'done' }] } });
        out.push({
          kind: 'response',
          request: `r${k}`,
          finish: { raw: 'x', reason: ch.t === 'unit' ? 'tool_calls' : 'stop' },
          usage: { input: 6, cacheRead: ch.ctx, cacheWrite: 100 },
        });
        surface.push(`a${k}`);
        if (ch.t === 'unit') {
          out.push({
            kind: 'item',
            item: {
              id: `t${k}`,
              role: 'tool',
              blocks: [{ type: 'tool_result', callId: `c${k}`, content: [{ type: 'text', text: 'result '.repeat((k % 7) + 1) }] }],
            },
          });
          surface.push(`t${k}`);
        }
        break;
      }
      case 'compact': {
        if (surface.length === 0) break;
        let a = Math.floor(ch.a * surface.length);
        let b = Math.floor(ch.b * surface.length);
        if (a > b) [a, b] = [b, a];
        const source = surface.slice(a, b + 1);
        const id = `cmp${c++}`;
        const start = out.length;
        out.push({ kind: 'compaction/start', id, trigger: ch.trigger, source, policy: pol as never });
        out.push({
          kind: 'request',
          id: `${id}-r`,
          purpose: 'compaction',
          compactionId: id,
          route: { maxOutput: 2_000 },
          input: { items: source, instruction: null },
        });
        const finish = ch.finish === 'none' ? {} : { finish: { raw: ch.finish, reason: ch.finish } };
        out.push({ kind: 'response', request: `${id}-r`, usage: { input: ch.src, output: ch.out }, ...finish });
        if (ch.mapreduce) {
          const cut = Math.floor(ch.cut * source.length);
          out.push({
            kind: 'mapreduce/staging',
            compactionId: id,
            version: ch.cut < 0.2 ? 1 : 3,
            fingerprint: 'f',
            segments: [
              { ordinal: 0, items: source.slice(0, Math.max(1, cut)) },
              ...(cut < source.length ? [{ ordinal: 1, items: source.slice(cut) }] : []),
            ],
          });
          out.push({ kind: 'mapreduce/map', compactionId: id, ordinal: 0, status: 'accepted', ...finish });
          out.push({
            kind: 'mapreduce/reduce',
            compactionId: id,
            level: 0,
            inputs: [0, 1],
            final: true,
            output: [{ type: 'text', text: 's' }],
            ...finish,
          });
          if (ch.cut > 0.5) out.push({ kind: 'mapreduce/audit', compactionId: id, verdict: ch.cut > 0.75 ? 'fail' : 'pass' });
        }
        if (ch.outcome === 'rejected' || ch.outcome === 'open') {
          out.push({ kind: 'compaction/summary-error', id, error: { code: 'E', message: 'no' }, ...finish });
          if (ch.outcome === 'rejected') out.push({ kind: 'compaction/end', id, outcome: 'rejected' });
          break;
        }
        out.push({
          kind: 'compaction/summary',
          id,
          summary: [{ type: 'text', text: 'summary '.repeat(ch.out % 9) }],
          source,
          sourceTokens: ch.src,
          usage: { output: ch.out },
          ...finish,
        });
        const last = out.length - 1;
        const kid = `k${id}`;
        if (ch.outcome === 'fallback') {
          out.push({
            kind: 'item',
            item: { id: kid, role: 'user', blocks: [{ type: 'text', text: '[truncated]' }], derivation: { kind: 'marker', of: source } },
            op: { op: 'replace', from: source[0] as string, to: source[source.length - 1] as string },
          });
          out.push({ kind: 'compaction/end', id, outcome: 'fallback', fallback: { kind: 'truncation', marker: ch.cut > 0.5 } });
        } else {
          out.push({
            kind: 'item',
            item: {
              id: kid,
              role: 'user',
              blocks: [{ type: 'text', text: 'ck' }],
              derivation: { kind: 'checkpoint', compactionId: id, covers: source },
            },
            op: { op: 'replace', from: source[0] as string, to: source[source.length - 1] as string },
            sources: [start, last],
          });
          out.push({ kind: 'compaction/end', id, outcome: 'committed' });
        }
        surface = [...surface.slice(0, a), kid, ...surface.slice(b + 1)];
        break;
      }
      case 'mask': {
        const id = at(ch.at);
        if (id) out.push({ kind: 'mask', items: [id], by: 'harness' });
        break;
      }
      case 'prune': {
        const id = at(ch.at);
        if (!id) break;
        const pid = `${id}~p${n++}`;
        out.push({
          kind: 'item',
          item: {
            id: pid,
            role: 'tool',
            blocks: [{ type: 'text', text: 'p' }],
            derivation: { kind: 'pruned', of: id, head: 1, tail: 1, omitted: 3 },
          },
          op: { op: 'replace', from: id, to: id },
        });
        surface = surface.map((x) => (x === id ? pid : x));
        break;
      }
      case 'truncate': {
        let a = Math.floor(ch.a * surface.length);
        let b = Math.floor(ch.b * surface.length);
        if (a > b) [a, b] = [b, a];
        const items = surface.slice(a, b + 1);
        if (items.length === 0) break;
        out.push({ kind: 'drop', items, reason: 'truncation' });
        surface = surface.filter((x) => !items.includes(x));
        break;
      }
      case 'life':
        out.push({ kind: 'lifecycle', boundary: ch.boundary });
        break;
      case 'window':
        out.push({ kind: 'header', route: { window: ch.w } });
        break;
    }
  }
  return out;
}

describe('diagnostics on random sessions', () => {
  it('no rule throws on plausible sessions (units, compactions over random ranges, MapReduce, masks, prunes, truncations)', () => {
    fc.assert(
      fc.property(fc.array(choice, { minLength: 1, maxLength: 60 }), policy, fc.boolean(), (choices, pol, withEstimator) => {
        const events = log(plausible(choices, pol));
        const state = replay(events);
        const ctx = buildContext({ events, state, format: 'palimpsest', estimate: withEstimator ? quarterChars : null });
        for (const rule of RULES) {
          try {
            rule.run(ctx);
          } catch (err) {
            throw new Error(`${rule.id} threw: ${err instanceof Error ? err.stack : String(err)}`, { cause: err });
          }
        }
        const ds = diagnose({ events, state, format: 'palimpsest', estimate: withEstimator ? quarterChars : null });
        expect(ds.filter((d) => d.rule === INTERNAL_RULE_ERROR)).toEqual([]);
        for (const d of ds) for (const s of d.seqs) expect(s).toBeLessThan(events.length);
      }),
      { numRuns: 300 },
    );
  });

  it('no rule ever throws on arbitrary event sequences, and every finding is well formed', () => {
    fc.assert(
      fc.property(session, fc.boolean(), pick(['palimpsest', 'dsh', null]), (bodies, withEstimator, format) => {
        const events = log(bodies);
        for (const branch of ['main', 'b']) {
          const state = replay(events, { branch });
          const ctx = buildContext({ events, state, format, estimate: withEstimator ? quarterChars : null });
          for (const rule of RULES) {
            let found;
            try {
              found = rule.run(ctx);
            } catch (err) {
              throw new Error(`${rule.id} threw on branch ${branch}: ${err instanceof Error ? err.stack : String(err)}`, { cause: err });
            }
            expect(Array.isArray(found)).toBe(true);
          }
          const ds = diagnose({ events, state, format, estimate: withEstimator ? quarterChars : null });
          expect(ds.filter((d) => d.rule === INTERNAL_RULE_ERROR)).toEqual([]);
          for (const d of ds) {
            expect(RULES.some((r) => r.id === d.rule && r.severities.includes(d.severity))).toBe(true);
            expect(d.message.length).toBeGreaterThan(0);
            for (const s of d.seqs) expect(s).toBeLessThan(events.length);
          }
        }
      }),
      { numRuns: 400 },
    );
  });
});
