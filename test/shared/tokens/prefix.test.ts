import { describe, expect, it } from 'vitest';
import type { CanonicalEventInput } from '../../../src/shared/model/event';
import { replay } from '../../../src/shared/replay/fold';
import { comparePrefix } from '../../../src/shared/tokens/prefix';
import { TokenAccountant, type RequestTokens } from '../../../src/shared/tokens/units';
import { assistant, call, log, request, result, text, user } from '../replay/build';
import { FakeSource } from './helpers';

/** A log of four tool rounds; `then` is appended before a last request. */
function session(then: CanonicalEventInput[], rounds = 4) {
  const bodies: CanonicalEventInput[] = [
    { kind: 'session', id: 's' },
    { kind: 'header', system: text('system prompt here'), tools: [{ name: 'bash' }], route: { model: 'm' } },
    user('u1', 'do the thing please'),
  ];
  for (let i = 1; i <= rounds; i++)
    bodies.push(request(`r${i}`), call(`a${i}`, `c${i}`), result(`t${i}`, `c${i}`, `output number ${i} with several words in it`));
  bodies.push(request('before'), ...then, request('after'));
  const state = replay(log(bodies));
  const source = new FakeSource();
  const acc = new TokenAccountant(state, source);
  source.count(acc.allRefs());
  const n = state.requests.length;
  return { prev: acc.tokensOf(n - 2) as RequestTokens, cur: acc.tokensOf(n - 1) as RequestTokens };
}

describe('prompt-cache prefix analysis', () => {
  it('a summarizer input that lists an item twice: the second listing is content the previous call had', () => {
    const state = replay(
      log([
        { kind: 'session', id: 's' },
        user('u1', 'one two three'),
        assistant('a1', 'four five six seven'),
        { kind: 'request', id: 's1', purpose: 'compaction', input: { items: ['u1', 'a1'] }, route: { model: 'm' } },
        { kind: 'request', id: 's2', purpose: 'compaction', input: { items: ['u1', 'a1', 'u1'] }, route: { model: 'm' } },
      ]),
    );
    const source = new FakeSource();
    const acc = new TokenAccountant(state, source);
    source.count(acc.allRefs());
    const prev = acc.tokensOf(0) as RequestTokens;
    const cur = acc.tokensOf(1) as RequestTokens;
    expect(cur.distinct).toBe(false);
    const c = comparePrefix(prev, cur);
    expect(c.sharedUnits).toBe(2);
    expect(c.recomputedTokens).toBe(cur.unitTokens[2]);
    expect(c.appendedTokens).toBe(0);
  });

  it('a tail append keeps the whole previous request as the shared prefix', () => {
    const { prev, cur } = session([assistant('a5', 'done now'), user('u2', 'thanks')]);
    const c = comparePrefix(prev, cur);
    expect(c.cacheBreak).toBe(false);
    expect(c.sharedUnits).toBe(prev.units.length);
    expect(c.sharedTokens).toBe(prev.total - 3); // everything but the per-request framing
    expect(c.firstChange).toMatchObject({ position: prev.units.length, cause: 'append' });
    expect(c.invalidatedTokens).toBe(0);
    expect(c.recomputedTokens).toBe(0);
    expect(c.appendedTokens).toBe(cur.total - 3 - c.sharedTokens);
  });

  it('a mid-history mask breaks the cache at the masked position and recomputes everything after it', () => {
    const { prev, cur } = session([{ kind: 'mask', items: ['t1'], by: 'harness', reference: text('[masked]') }]);
    const c = comparePrefix(prev, cur);
    const at = cur.units.findIndex((u) => u.label === 't1');
    expect(c.cacheBreak).toBe(true);
    expect(c.where).toBe('mid');
    expect(c.firstChange).toEqual({ position: at, unit: 't1', cause: 'mask' });
    expect(c.sharedUnits).toBe(at);
    // Everything after the mask was cached and must be recomputed; nothing is new.
    let after = 0;
    for (let i = at; i < prev.units.length; i++) after += prev.unitTokens[i] as number;
    expect(c.invalidatedTokens).toBe(after);
    expect(c.appendedTokens).toBe(0);
    expect(c.recomputedTokens).toBeGreaterThan(0);
    expect(c.recomputedTokens).toBeLessThan(after);
  });

  it('a mask far back recomputes every later unit, however many (past the scan of short tails)', () => {
    for (const rounds of [4, 12]) {
      const { prev, cur } = session([{ kind: 'mask', items: ['t1'], by: 'harness', reference: text('[masked]') }], rounds);
      const c = comparePrefix(prev, cur);
      let after = 0;
      for (let i = c.sharedUnits; i < cur.units.length; i++) after += cur.unitTokens[i] as number;
      expect(cur.units.length - c.sharedUnits).toBe(2 * rounds - 1); // t1 (masked now), then a2, t2 … a_n, t_n
      expect(c.appendedTokens).toBe(0);
      expect(c.appendedUnits).toBe(0);
      expect(c.recomputedTokens).toBe(after);
    }
  });

  it('a mask of the newest tool result changes only the tail', () => {
    const { prev, cur } = session([{ kind: 'mask', items: ['t4'], by: 'model', reference: text('[masked]') }]);
    const c = comparePrefix(prev, cur);
    expect(c.firstChange).toMatchObject({ unit: 't4', cause: 'mask' });
    expect(c.where).toBe('tail');
    expect(c.sharedUnits).toBe(prev.units.length - 1);
  });

  it('a compaction breaks at the checkpoint; a system-prompt change at the head', () => {
    const compacted = session([
      {
        kind: 'item',
        item: {
          id: 'k1',
          role: 'user',
          blocks: text('summary of the first two rounds'),
          derivation: { kind: 'checkpoint', compactionId: 'c1', covers: ['u1', 'a1', 't1', 'a2', 't2'] },
        },
        op: { op: 'replace', from: 'u1', to: 't2' },
      },
    ]);
    const c = comparePrefix(compacted.prev, compacted.cur);
    expect(c.firstChange).toMatchObject({ position: 2, unit: 'k1', cause: 'compaction' });
    expect(c.where).toBe('mid');
    // The checkpoint and the raw tail after it are recomputed; nothing is appended.
    expect(c.recomputedTokens).toBe(compacted.cur.total - 3 - c.sharedTokens);

    const system = session([{ kind: 'header', system: text('a different system prompt') }]);
    const s = comparePrefix(system.prev, system.cur);
    expect(s.firstChange).toMatchObject({ position: 1, cause: 'system' });
    expect(s.where).toBe('head');
    expect(s.sharedUnits).toBe(1);
  });

  it('an identical system prompt logged again is no change', () => {
    const { prev, cur } = session([{ kind: 'header', system: text('system prompt here') }]);
    const c = comparePrefix(prev, cur);
    expect(c.cacheBreak).toBe(false);
    expect(c.firstChange).toBeNull();
  });

  it('compares provider cache reads with the shared prefix', () => {
    const { prev, cur } = session([assistant('a5', 'x')]);
    const withUsage = { ...cur, request: { ...cur.request, usage: { input: 10, cacheRead: 40 } } };
    const c = comparePrefix(prev, withUsage);
    expect(c.reportedCacheRead).toBe(40);
    expect(c.cacheReadRatio).toBeCloseTo(40 / c.sharedTokens);
    expect(comparePrefix(null, cur)).toMatchObject({ previous: null, cacheBreak: false });
  });
});
