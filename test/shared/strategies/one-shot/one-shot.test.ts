import { describe, expect, it } from 'vitest';
import { itemTokens, viewTokens } from '../../../../src/shared/strategies/common/render';
import { charCounter } from '../common/char-counter';
import { summaryBudget } from '../../../../src/shared/strategies/one-shot/budget';
import { oneShot } from '../../../../src/shared/strategies/one-shot';
import { bodyMarker } from '../../../../src/shared/strategies/one-shot/precheck';
import { CONTINUATION_TEXT } from '../../../../src/shared/strategies/one-shot/request';
import type { SummaryCall, SummaryRequest, Summarizer } from '../../../../src/shared/strategies/types';
import { FakeSummarizer } from '../fake-summarizer';
import { assistant, call, chars, input, result, user, view } from '../common/build';

const HANDOFF = 'Objective: fix the build. Constraint: never edit package.json. Done: import fixed in src/app.ts.';

function session() {
  return [
    user('u1', 'Fix the failing build. Never edit package.json.'),
    call('c1', 'k1', 'read_file', '{"path":"src/app.ts"}'),
    result('r1', 'k1', "error TS2304: Cannot find name 'foo'."),
    assistant('a1', 'Fixed the import in src/app.ts.'),
    user('u2', 'Now run the tests.'),
    assistant('a2', 'Running them.'),
  ];
}
const sum = (xs: readonly number[], from: number, to = xs.length): number => xs.slice(from, to).reduce((a, b) => a + b, 0);

describe('one-shot: Rind summary budget', () => {
  it('reserves min(8,192, window/10) for output and 5 % of the window as headroom', () => {
    expect(summaryBudget(100_000, 1)).toEqual({ window: 100_000, windowOf: 'summarizer', reserve: 8_192, headroom: 5_000, input: 86_808 });
    expect(summaryBudget(32_000, 1)).toEqual({ window: 32_000, windowOf: 'summarizer', reserve: 3_200, headroom: 1_600, input: 27_200 });
    // Without a known summarizer window the agent's window sizes the request.
    expect(summaryBudget(null, 200_000)).toEqual({ window: 200_000, windowOf: 'agent', reserve: 8_192, headroom: 10_000, input: 181_808 });
  });
});

describe('one-shot: handoff view', () => {
  it('replaces the history by a continuation + handoff pair and keeps the recent tail verbatim', async () => {
    const items = session();
    const t = itemTokens(items, charCounter);
    const fake = new FakeSummarizer([() => ({ text: HANDOFF })], 100_000);
    const source = view(items);
    const res = await oneShot.run(input(source, { summarizer: fake, options: { tailTokens: sum(t, 4) } }));

    expect(res.outcome).toBe('committed');
    expect(res.error).toBeNull();
    expect(res.summary).toBe(HANDOFF);
    expect(res.view?.items.map((i) => i.id)).toEqual(['one-shot:1', 'one-shot:2', 'u2', 'a2']);
    expect(res.view?.items[0]).toEqual({
      id: 'one-shot:1',
      role: 'user',
      blocks: [{ type: 'text', text: CONTINUATION_TEXT }],
      derivation: { kind: 'checkpoint', compactionId: 'rerun', covers: ['u1', 'c1', 'r1', 'a1'], part: 'continuation' },
    });
    expect(res.view?.items[1]).toEqual({
      id: 'one-shot:2',
      role: 'assistant',
      blocks: [{ type: 'text', text: HANDOFF }],
      derivation: { kind: 'checkpoint', compactionId: 'rerun', covers: ['u1', 'c1', 'r1', 'a1'], part: 'handoff' },
    });
    expect(res.view?.items[2]).toEqual({ id: 'u2', role: 'user', blocks: items[4]?.blocks });
    expect(res.view?.system).toBe(source.system);
    expect(res.tokens).toEqual({ before: viewTokens(source, charCounter), after: viewTokens(res.view ?? source, charCounter) });
    expect(res.calls).toHaveLength(1);

    // History and retained recent messages are separate sections; the tail is for reference only.
    const req = fake.requests[0] as SummaryRequest;
    expect(req).toMatchObject({ stage: 'one-shot', maxOutput: 8_192 });
    const [history, recent] = (req.messages[0]?.text ?? '').split('<retained_recent_messages>');
    expect(history).toContain('[#0 user]\nFix the failing build. Never edit package.json.');
    expect(history).toContain('[#3 assistant]\nFixed the import in src/app.ts.');
    expect(history).not.toContain('[#4 user]');
    expect(recent).toContain('[#4 user]\nNow run the tests.\n\n[#5 assistant]\nRunning them.');
    expect(req.system).toContain('do not repeat');
  });

  it('sends maxOutput 3,200 when the summarizer window is 32,000, and the agent window sizes it when unknown', async () => {
    const items = session();
    const t = itemTokens(items, charCounter);
    const small = new FakeSummarizer([() => ({ text: HANDOFF })], 32_000);
    await oneShot.run(input(view(items), { summarizer: small, options: { tailTokens: sum(t, 4) } }));
    expect(small.requests[0]?.maxOutput).toBe(3_200);
    const unknown = new FakeSummarizer([() => ({ text: HANDOFF })], null);
    const res = await oneShot.run(input(view(items), { window: 32_000, summarizer: unknown, options: { tailTokens: sum(t, 4) } }));
    expect(unknown.requests[0]?.maxOutput).toBe(3_200);
    expect(res.notes.some((n) => n.includes("32,000 (agent's)"))).toBe(true);
  });

  it('never separates a tool call from its result at the tail cut', async () => {
    const items = session();
    const t = itemTokens(items, charCounter);
    // Room for r1..a2 but not for c1: the tail cannot start at the orphan result r1.
    const res = await oneShot.run(
      input(view(items), { summarizer: new FakeSummarizer([() => ({ text: HANDOFF })]), options: { tailTokens: sum(t, 2) } }),
    );
    expect(res.view?.items.map((i) => i.id)).toEqual(['one-shot:1', 'one-shot:2', 'a1', 'u2', 'a2']);
    const withCall = await oneShot.run(
      input(view(items), { summarizer: new FakeSummarizer([() => ({ text: HANDOFF })]), options: { tailTokens: sum(t, 1) } }),
    );
    expect(withCall.view?.items.map((i) => i.id)).toEqual(['one-shot:1', 'one-shot:2', 'c1', 'r1', 'a1', 'u2', 'a2']);
  });

  it("rejects a handoff view that does not fit the agent's window (the commit budget is the agent's, cosh)", async () => {
    const items = session();
    const t = itemTokens(items, charCounter);
    // A 6,000-character system prompt alone is 1,500 tokens, over a 1,000-token agent window.
    const res = await oneShot.run(
      input(view(items, chars(6_000, 's')), {
        window: 1_000,
        summarizer: new FakeSummarizer([() => ({ text: HANDOFF })]),
        options: { tailTokens: sum(t, 4) },
      }),
    );
    expect(res.outcome).toBe('failed');
    expect(res.error).toMatch(/^the handoff view \([\d,]+ tokens\) does not fit the agent's window \(1,000\)$/);
    expect(res.calls).toHaveLength(1);
  });

  it('keeps an unanswered call at the end in the tail whatever the tail budget', async () => {
    const items = [...session(), call('c9', 'k9', 'bash', '{"cmd":"npm test"}')];
    const res = await oneShot.run(
      input(view(items), { summarizer: new FakeSummarizer([() => ({ text: HANDOFF })]), options: { tailTokens: 0 } }),
    );
    expect(res.view?.items.map((i) => i.id)).toEqual(['one-shot:1', 'one-shot:2', 'c9']);
  });
});

describe('one-shot: Rind precheck', () => {
  it('shortens an over-long tool result body to first 2,000 + marker + last 2,000; user text and tool arguments stay whole', async () => {
    const body = Array.from({ length: 60_000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');
    const requirement = `Requirement: ${chars(3_000, 'r')}`;
    const args = `{"content":"${chars(5_000, 'w')}"}`;
    const items = [
      user('u1', requirement),
      call('c1', 'k1', 'write_file', args),
      result('r1', 'k1', body),
      user('u2', 'ok'),
      assistant('a2', 'done'),
    ];
    // Summarizer window 10,000: request budget 10,000 − 1,000 − 500 = 8,500 tokens; the body alone is 15,000.
    const fake = new FakeSummarizer([() => ({ text: HANDOFF })], 10_000);
    const res = await oneShot.run(input(view(items), { summarizer: fake, options: { tailTokens: 20 } }));
    expect(res.outcome).toBe('committed');
    const text = fake.requests[0]?.messages[0]?.text ?? '';
    expect(text).toContain(`[tool result id=k1] ${body.slice(0, 2_000)}${bodyMarker(56_000)}${body.slice(58_000)}\n</history>`);
    expect(text).toContain(requirement);
    expect(text).toContain(args);
    expect(fake.requests[0]?.maxOutput).toBe(1_000);
    expect(res.notes).toContain(
      'precheck shortened 1 tool bodies to first 2,000 + last 2,000 characters (1 in the history, 0 in the reference copy of the tail; 56,000 characters omitted)',
    );
  });

  it('shortens the reference copy of the tail only when the history alone cannot make room, and keeps the tail verbatim in the view', async () => {
    const body = chars(60_000, 'b');
    const items = [user('u1', 'Start.'), assistant('a1', 'Started.'), call('c2', 'k2'), result('r2', 'k2', body)];
    const fake = new FakeSummarizer([() => ({ text: HANDOFF })], 10_000);
    const t = itemTokens(items, charCounter);
    const res = await oneShot.run(input(view(items), { summarizer: fake, options: { tailTokens: sum(t, 2) } }));
    expect(res.outcome).toBe('committed');
    expect(fake.requests[0]?.messages[0]?.text).toContain(`${chars(2_000, 'b')}${bodyMarker(56_000)}${chars(2_000, 'b')}`);
    expect(res.view?.items.map((i) => i.id)).toEqual(['one-shot:1', 'one-shot:2', 'c2', 'r2']);
    expect(res.view?.items[3]?.blocks).toEqual(items[3]?.blocks);
    expect(res.notes.some((n) => n.includes('(0 in the history, 1 in the reference copy of the tail'))).toBe(true);
  });

  it('fails without a call when the request still does not fit: user requirements are never cut', async () => {
    const items = [user('u1', chars(40_000, 'u')), assistant('a1', 'noted'), user('u2', 'go'), assistant('a2', 'going')];
    const fake = new FakeSummarizer([() => ({ text: HANDOFF })], 10_000);
    const res = await oneShot.run(input(view(items), { summarizer: fake, options: { tailTokens: 20 } }));
    expect(res.outcome).toBe('failed');
    expect(res.error).toMatch(
      /^cannot cut user requirements: the summary request needs [\d,]+ tokens, 8,500 fit \(window 10,000 − reserve 1,000 − headroom 500\)/,
    );
    expect(fake.requests).toHaveLength(0);
    expect(res.calls).toHaveLength(0);
    expect(res.view).toBeNull();
    expect(res.tokens.after).toBeNull();
  });
});

describe('one-shot: completion integrity and cancellation', () => {
  const run = (fake: Summarizer, signal?: AbortSignal) => {
    const items = session();
    return oneShot.run(input(view(items), { summarizer: fake, signal, options: { tailTokens: sum(itemTokens(items, charCounter), 4) } }));
  };

  it('an empty summary is not a handoff, and its usage is still recorded', async () => {
    const res = await run(new FakeSummarizer([() => ({ text: '', usage: { input: 900, output: 0 } })]));
    expect(res.outcome).toBe('failed');
    expect(res.error).toBe('not a handoff: summary call failed (empty: empty summary)');
    expect(res.calls[0]?.usage).toEqual({ input: 900, output: 0 });
  });

  it('a non-natural finish is not a handoff', async () => {
    const res = await run(
      new FakeSummarizer([
        () => ({ text: 'half a summ', finish: { raw: 'max_tokens', reason: 'length' }, usage: { input: 900, output: 8_192 } }),
      ]),
    );
    expect(res.outcome).toBe('failed');
    expect(res.error).toBe('not a handoff: summary call failed (incomplete: finish reason: max_tokens)');
    expect(res.calls[0]?.usage?.output).toBe(8_192);
  });

  it('rechecks cancellation after the model returns, before building the result', async () => {
    const ctl = new AbortController();
    const inner = new FakeSummarizer([() => ({ text: HANDOFF })]);
    const cancelling: Summarizer = {
      window: inner.window,
      defaultMaxOutput: null,
      async summarize(req: SummaryRequest, signal: AbortSignal): Promise<SummaryCall> {
        const answer = await inner.summarize(req, signal);
        ctl.abort();
        return answer;
      },
    };
    const res = await run(cancelling, ctl.signal);
    expect(res.outcome).toBe('failed');
    expect(res.error).toBe('cancelled after the summary returned; nothing committed');
    expect(res.calls).toHaveLength(1);
    expect(res.view).toBeNull();
  });

  it('rejects unknown or out-of-range options instead of throwing', async () => {
    expect((await oneShot.run(input(view(session()), { summarizer: new FakeSummarizer([]), options: { tailRatio: 2 } }))).error).toMatch(
      /^invalid options/,
    );
    expect((await oneShot.run(input(view(session()), { summarizer: new FakeSummarizer([]), options: { bogus: 1 } }))).error).toMatch(
      /Unrecognized key: "bogus"/,
    );
    expect((await oneShot.run(input(view(session())))).error).toBe('one-shot needs a summarizer; none was given');
  });
});
