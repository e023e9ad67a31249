import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CanonicalEventInput } from '../../../src/shared/model/event';
import { replay, type ReplayState } from '../../../src/shared/replay/fold';
import {
  CATEGORY_INDEX,
  FRAMING_PER_MESSAGE,
  FRAMING_PER_REQUEST,
  itemBlockParts,
  noUncountable,
  TOKEN_CATEGORIES,
  type TextPart,
} from '../../../src/shared/tokens/categories';
import { chooseEncoding } from '../../../src/shared/tokens/encoding';
import { defaultPolicyFor } from '../../../src/shared/tokens/policy';
import { RequestPass, totalsInOrder } from '../../../src/shared/tokens/pass';
import { comparePrefix } from '../../../src/shared/tokens/prefix';
import { REPORT_STEP, reportSteps } from '../../../src/shared/tokens/report';
import { TokenAccountant, type RequestTokens } from '../../../src/shared/tokens/units';
import { assistant, call, log, request, result, text, user } from '../replay/build';
import { FakeSource, words } from './helpers';

const sum = (xs: Float64Array): number => xs.reduce((a, b) => a + b, 0);

describe('categories', () => {
  it('puts every block of an item in its category', () => {
    const out: TextPart[] = [];
    const unc = noUncountable();
    itemBlockParts(
      { role: 'assistant' },
      [
        { type: 'reasoning', text: 'think' },
        { type: 'text', text: 'say' },
        { type: 'tool_call', id: 'c1', name: 'bash', input: '{"command":"ls"}' },
        { type: 'reasoning', text: '', redacted: true },
        { type: 'image', mediaType: 'image/png', bytes: 10 },
      ],
      out,
      unc,
    );
    expect(out.map((p) => p.category)).toEqual(['reasoning', 'assistant', 'tool_call']);
    expect(out[2]?.text).toBe('bash {"command":"ls"}');
    expect(unc).toEqual({ images: 1, opaque: 0, redacted: 1 });

    const derived: TextPart[] = [];
    itemBlockParts(
      { role: 'user', derivation: { kind: 'checkpoint', compactionId: 'c', covers: [], part: 'summary' } },
      text('summary'),
      derived,
      unc,
    );
    itemBlockParts(
      { role: 'tool', derivation: { kind: 'pruned', of: 't', head: 1, tail: 1, omitted: 5, unit: 'chars' } },
      [{ type: 'tool_result', callId: 'c1', content: text('head … tail') }],
      derived,
      unc,
    );
    itemBlockParts({ role: 'tool' }, [{ type: 'tool_result', callId: 'c1', content: text('out') }], derived, unc);
    expect(derived.map((p) => p.category)).toEqual(['checkpoint', 'pruned', 'tool_result']);
  });

  it('counts elided text by its full length and says it is incomplete', () => {
    const out: TextPart[] = [];
    itemBlockParts({ role: 'user' }, [{ type: 'text', text: 'preview', elided: 993 }], out, noUncountable());
    expect(out[0]).toMatchObject({ chars: 1000, complete: false });
  });
});

describe('accounting', () => {
  const events = log([
    { kind: 'session', id: 's' },
    {
      kind: 'header',
      system: text('You are a careful agent'),
      tools: [{ name: 'bash', description: 'Run a command' }],
      route: { provider: 'openai', model: 'gpt-4o', window: 1000 },
    },
    user('u1', 'please list the files here'),
    request('r1'),
    {
      kind: 'item',
      item: {
        id: 'a1',
        role: 'assistant',
        blocks: [
          { type: 'reasoning', text: 'I will run ls' },
          { type: 'tool_call', id: 'c1', name: 'bash', input: '{"command":"ls"}' },
        ],
      },
    },
    result('t1', 'c1', 'a.txt b.txt c.txt'),
    { kind: 'todo', todos: [{ content: 'list files', status: 'completed' }] },
    request('r2'),
    assistant('a2', 'there are three files'),
  ]);

  it('sums the categories of a view to its total', () => {
    const state = replay(events);
    const source = new FakeSource();
    const acc = new TokenAccountant(state, source);
    source.count(acc.allRefs());
    const t = acc.tokensOf(1);
    expect(t).not.toBeNull();
    if (!t) return;
    expect(sum(t.byCategory)).toBe(t.total);
    expect(t.estimated).toBe(0);
    const cat = (c: (typeof TOKEN_CATEGORIES)[number]): number => t.byCategory[CATEGORY_INDEX[c]] as number;
    expect(cat('system')).toBe(words('You are a careful agent'));
    expect(cat('user')).toBe(words('please list the files here'));
    expect(cat('reasoning')).toBe(words('I will run ls'));
    expect(cat('tool_call')).toBe(words('bash {"command":"ls"}'));
    expect(cat('tool_result')).toBe(3);
    expect(cat('todo')).toBe(words('[completed] list files'));
    expect(cat('tools')).toBeGreaterThan(0);
    // tools, system, u1, a1, t1, todo: framing for every message but the tools, plus the request's.
    expect(cat('framing')).toBe(FRAMING_PER_REQUEST + 5 * FRAMING_PER_MESSAGE);
  });

  it('keeps an estimate while the count source stays where it was, and works it out again once it moves', () => {
    const state = replay(events);
    let perToken = 4;
    const source = Object.assign(new FakeSource(), { charsPerToken: () => perToken });
    const acc = new TokenAccountant(state, source);
    const first = acc.tokensOf(1)?.total;
    perToken = 2; // a calibration that did not move the epoch: the kept estimates stand
    expect(acc.tokensOf(1)?.total).toBe(first);
    source.epoch = 1;
    const second = acc.tokensOf(1)?.total ?? 0;
    expect(second).toBeGreaterThan(first ?? Infinity);
  });

  it('estimates what is not counted yet, labels it, and is exact once counted', () => {
    const state = replay(events);
    const source = new FakeSource();
    const acc = new TokenAccountant(state, source);
    const before = acc.tokensOf(1);
    expect(before?.estimated).toBeGreaterThan(0);
    source.count(acc.refsOf(1));
    const after = acc.tokensOf(1);
    expect(after?.estimated).toBe(0);
    expect(acc.refsOf(1).every((s) => source.get(s.ref) !== undefined)).toBe(true);
  });

  it('sums to the total for any log (property)', () => {
    const item = fc.oneof(
      fc.record({ kind: fc.constant('user' as const), t: fc.string({ maxLength: 40 }) }),
      fc.record({ kind: fc.constant('assistant' as const), t: fc.string({ maxLength: 40 }) }),
      fc.record({ kind: fc.constant('call' as const), t: fc.string({ maxLength: 10 }) }),
      fc.record({ kind: fc.constant('request' as const), t: fc.constant('') }),
    );
    fc.assert(
      fc.property(fc.array(item, { minLength: 1, maxLength: 30 }), fc.boolean(), (xs, countSome) => {
        const bodies: CanonicalEventInput[] = [
          { kind: 'session', id: 's' },
          { kind: 'header', system: null, tools: null },
        ];
        let n = 0;
        for (const x of xs) {
          n++;
          if (x.kind === 'user') bodies.push(user(`u${n}`, x.t));
          else if (x.kind === 'assistant') bodies.push(assistant(`a${n}`, x.t));
          else if (x.kind === 'call') bodies.push(call(`c${n}`, `call${n}`), result(`r${n}`, `call${n}`, x.t));
          else bodies.push(request(`q${n}`));
        }
        bodies.push(request('last'));
        const state = replay(log(bodies));
        const source = new FakeSource();
        const acc = new TokenAccountant(state, source);
        if (countSome) source.count(acc.allRefs().filter((_, i) => i % 2 === 0));
        for (let i = 0; i < state.requests.length; i++) {
          const t = acc.tokensOf(i);
          if (!t) return false;
          if (Math.abs(sum(t.byCategory) - t.total) > 1e-9) return false;
          if (t.unloggedSystem !== true || t.unloggedTools !== true) return false;
        }
        return true;
      }),
      { numRuns: 200 },
    );
  });

  it('counts a summarizer call by the input it sent, not the surface', () => {
    const state = replay(
      log([
        { kind: 'session', id: 's' },
        user('u1', 'one two three'),
        assistant('a1', 'four five'),
        { kind: 'request', id: 'sum', purpose: 'compaction', input: { items: ['a1'], instruction: text('summarise') } },
      ]),
    );
    const source = new FakeSource();
    const acc = new TokenAccountant(state, source);
    source.count(acc.allRefs());
    expect(acc.unitsOf(0)?.map((u) => u.label)).toEqual(['a1']);
    expect(acc.tokensOf(0)?.byCategory[CATEGORY_INDEX.assistant]).toBe(2);
  });
});

describe('the report in steps', () => {
  it('pauses every REPORT_STEP requests and gives the same report whatever runs in between', () => {
    const bodies: CanonicalEventInput[] = [
      { kind: 'session', id: 's' },
      { kind: 'header', system: text('sys'), route: { model: 'gpt-4o', window: 100_000 } },
    ];
    for (let i = 0; i < 1_050; i++) bodies.push(user(`u${i}`, `question ${i}`), request(`q${i}`), assistant(`a${i}`, `answer ${i}`));
    const state = replay(log(bodies));
    const choice = chooseEncoding({ model: 'gpt-4o' });
    const policy = defaultPolicyFor('palimpsest');
    const straight = new TokenAccountant(state, new FakeSource());
    const expected = reportSteps(straight, choice, policy);
    let r = expected.next();
    while (!r.done) r = expected.next();
    const acc = new TokenAccountant(state, new FakeSource());
    const steps = reportSteps(acc, choice, policy);
    let pauses = 0;
    let s = steps.next();
    while (!s.done) {
      pauses++;
      acc.tokensOf((pauses * 97) % 1_050); // someone else's question between two steps
      s = steps.next();
    }
    expect(pauses).toBeGreaterThanOrEqual(Math.floor(1_050 / REPORT_STEP));
    expect(s.value.requests).toHaveLength(1_050);
    expect(s.value).toEqual(r.value);
  });
});

describe('encoding per model family', () => {
  it("names the encoding and whether it is the model's own", () => {
    expect(chooseEncoding({ provider: 'openai', model: 'gpt-4o-mini' })).toMatchObject({ encoding: 'o200k_base', exact: true });
    expect(chooseEncoding({ provider: 'openai', model: 'gpt-5.3-codex' })).toMatchObject({ encoding: 'o200k_base', exact: true });
    expect(chooseEncoding({ model: 'gpt-4-turbo' })).toMatchObject({ encoding: 'cl100k_base', exact: true });
    expect(chooseEncoding({ model: 'gpt-3.5-turbo' })).toMatchObject({ encoding: 'cl100k_base', exact: true });
    expect(chooseEncoding({ provider: 'anthropic', model: 'claude-opus-4-6' })).toMatchObject({ exact: false, family: 'anthropic' });
    expect(chooseEncoding({ provider: 'deepseek-official', model: 'deepseek-v4-flash' })).toMatchObject({
      exact: false,
      family: 'deepseek',
    });
    expect(chooseEncoding({})).toMatchObject({ encoding: 'o200k_base', exact: false, family: 'unknown' });
  });
});

describe('requests in order (RequestPass)', () => {
  type Step =
    | { t: 'item' }
    | { t: 'extend'; at: number }
    | { t: 'mask'; at: number; masked: boolean }
    | { t: 'replace'; a: number; b: number }
    | { t: 'drop'; at: number }
    | { t: 'restore'; at: number }
    | { t: 'request'; model: number }
    | { t: 'summarizer'; at: number }
    | { t: 'todo' }
    | { t: 'header' };
  const frac = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });
  const step: fc.Arbitrary<Step> = fc.oneof(
    { weight: 5, arbitrary: fc.constant({ t: 'item' as const }) },
    { weight: 2, arbitrary: fc.record({ t: fc.constant('extend' as const), at: frac }) },
    { weight: 2, arbitrary: fc.record({ t: fc.constant('mask' as const), at: frac, masked: fc.boolean() }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('replace' as const), a: frac, b: frac }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('drop' as const), at: frac }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('restore' as const), at: frac }) },
    { weight: 3, arbitrary: fc.record({ t: fc.constant('request' as const), model: fc.integer({ min: 0, max: 2 }) }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('summarizer' as const), at: frac }) },
    { weight: 1, arbitrary: fc.constant({ t: 'todo' as const }) },
    { weight: 1, arbitrary: fc.constant({ t: 'header' as const }) },
  );

  /** A log of items, extensions, masks (with and without references), replacements, drops, restores, todos, headers and requests to three models. */
  function session(steps: readonly Step[]): ReplayState {
    const bodies: CanonicalEventInput[] = [
      { kind: 'session', id: 's' },
      { kind: 'header', system: text('system prompt'), tools: [{ name: 'bash' }] },
    ];
    const ids: string[] = [];
    const dropped: string[] = [];
    const pick = (xs: readonly string[], f: number): string | undefined => xs[Math.floor(f * xs.length)];
    let n = 0;
    for (const x of steps) {
      n++;
      if (x.t === 'item') {
        ids.push(`i${n}`);
        bodies.push(n % 3 ? user(`i${n}`, `words ${'w '.repeat(n % 7)}`) : assistant(`i${n}`, `reply ${n}`));
      } else if (x.t === 'extend') {
        const id = pick(ids, x.at);
        if (id)
          bodies.push({ kind: 'item', op: { op: 'extend' }, item: { id, role: 'assistant', blocks: text(`more ${'m '.repeat(n % 5)}`) } });
      } else if (x.t === 'mask') {
        const id = pick(ids, x.at);
        if (id) bodies.push({ kind: 'mask', items: [id], masked: x.masked, ...(n % 2 ? { reference: text(`[ref ${n}]`) } : {}) });
      } else if (x.t === 'replace') {
        const a = pick(ids, x.a);
        const b = pick(ids, x.b);
        if (a && b) {
          bodies.push({
            kind: 'item',
            op: { op: 'replace', from: a, to: b },
            item: { id: `k${n}`, role: 'user', blocks: text(`summary ${n}`) },
          });
          ids.push(`k${n}`);
        }
      } else if (x.t === 'drop') {
        const id = pick(ids, x.at);
        if (id) {
          bodies.push({ kind: 'drop', items: [id], reason: 'truncation' });
          dropped.push(id);
        }
      } else if (x.t === 'restore') {
        const id = pick(dropped, x.at);
        if (id) bodies.push({ kind: 'restore', items: [id] });
      } else if (x.t === 'summarizer') {
        const id = pick(ids, x.at);
        bodies.push({ kind: 'request', id: `s${n}`, purpose: 'compaction', input: { items: id ? [id] : [] } });
      } else if (x.t === 'todo') {
        bodies.push({ kind: 'todo', todos: [{ content: `step ${n}`, status: n % 2 ? 'pending' : 'completed' }] });
      } else if (x.t === 'header') {
        bodies.push({ kind: 'header', system: text(`system prompt ${n % 2}`), ...(n % 3 ? {} : { tools: [{ name: `tool${n}` }] }) });
      } else bodies.push({ kind: 'request', id: `q${n}`, route: { model: `m${x.model}` } });
    }
    bodies.push(request('last'));
    return replay(log(bodies));
  }

  it("gives each request's totals to the last bit, through extensions, masks, replacements, drops and restores (property)", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 120 }), fc.boolean(), (steps, countSome) => {
        const state = session(steps);
        const source = new FakeSource();
        const acc = new TokenAccountant(state, source);
        if (countSome) source.count(acc.allRefs().filter((_, i) => i % 2 === 0));
        const want = state.requests.map((_, i) => acc.tokensOf(i)?.total);
        expect(totalsInOrder(acc)).toEqual(want);
      }),
      { numRuns: 300 },
    );
  });

  it('gives what tokensOf gives, field for field, while counts arrive between requests and results are handed back (property)', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 120 }), frac, frac, (steps, countAt, share) => {
        const state = session(steps);
        const source = new FakeSource();
        const acc = new TokenAccountant(state, source);
        const refs = acc.allRefs();
        const pass = new RequestPass(acc);
        const last = new Map<string, RequestTokens>();
        const moveAt = Math.floor(countAt * state.requests.length);
        for (let i = 0; i < state.requests.length; i++) {
          if (i === moveAt) source.count(refs.filter((_, k) => k / refs.length < share));
          const model = state.requests[i]?.route.model ?? '';
          const spare = last.get(`${model}/spare`) ?? null;
          const got = pass.next(i, spare);
          const want = acc.tokensOf(i);
          if (!got || !want) return got === want;
          expect(got.units.length).toBe(want.units.length);
          expect(got.units.every((u, k) => u === want.units[k])).toBe(true);
          expect([...got.unitTokens]).toEqual([...want.unitTokens]);
          expect([...got.byCategory]).toEqual([...want.byCategory]);
          const { units: _u, unitTokens: _t, byCategory: _c, ...rest } = got;
          const { units: _wu, unitTokens: _wt, byCategory: _wc, ...wantRest } = want;
          expect(rest).toEqual(wantRest);
          // The previous result of this model is handed back two requests later, as the report does.
          const prev = last.get(model);
          if (prev) last.set(`${model}/spare`, prev);
          last.set(model, got);
        }
        return true;
      }),
      { numRuns: 300 },
    );
  });

  it("makes the report's rows: each request's figures and its prefix against the previous one on the same model (property)", () => {
    const choice = chooseEncoding({ model: 'gpt-4o' });
    const policy = defaultPolicyFor('palimpsest');
    fc.assert(
      fc.property(fc.array(step, { maxLength: 120 }), fc.boolean(), (steps, countSome) => {
        const state = session(steps);
        const source = new FakeSource();
        const acc = new TokenAccountant(state, source);
        if (countSome) source.count(acc.allRefs().filter((_, i) => i % 3 === 0));
        const run = reportSteps(acc, choice, policy);
        let r = run.next();
        while (!r.done) r = run.next();
        const last = new Map<string, RequestTokens>();
        expect(r.value.requests).toHaveLength(state.requests.length);
        state.requests.forEach((req, i) => {
          const t = acc.tokensOf(i) as RequestTokens;
          const row = r.value.requests[i];
          const model = req.route.model ?? '';
          expect(row?.estimatedTokens).toBe(Math.round(t.total));
          expect(row?.uncounted).toBe(Math.round(t.estimated));
          expect(row?.maskedUnknown).toBe(t.maskedUnknown);
          expect(row?.cache).toEqual(comparePrefix(last.get(model) ?? null, t));
          last.set(model, t);
        });
      }),
      { numRuns: 150 },
    );
  });

  it('goes through the requests in order only', () => {
    const state = session([{ t: 'item' }, { t: 'request', model: 0 }, { t: 'item' }, { t: 'request', model: 0 }]);
    const pass = new RequestPass(new TokenAccountant(state, new FakeSource()));
    expect(pass.next(1)).not.toBeNull();
    expect(() => pass.next(0)).toThrow(RangeError);
  });
});
