import { describe, expect, it } from 'vitest';
import { bodyJson } from '../../../src/main/mock';
import type { AttemptRecord } from '../../../src/main/providers/call';
import { ChainSummarizer } from '../../../src/main/providers/chain';
import { resolveSummarizationModels } from '../../../src/shared/rerun/pinned';
import { KEY, fixedKey, pin, recordingClock, request, sentMaxOutput, startMock } from './helpers';

/*
 * cosh's summarization-model chain over the real adapters: bounded retries on one model, then
 * the next; cancellation stops it; exhaustion names every model; an overflow goes straight back.
 */

const ok = (text: string) => ({ reply: { content: [{ type: 'text' as const, text }] } });
const onAnthropic = { protocol: 'anthropic-messages' };
const onResponses = { protocol: 'openai-responses' };

describe('ChainSummarizer', () => {
  it('advances to the second model after the bounded retries on the first, and says which model answered', async () => {
    const m = await startMock({
      steps: [
        { when: onAnthropic, fault: { kind: 'http', status: 500 }, times: 0 },
        { when: onResponses, ...ok('Objective: from B.') },
      ],
    });
    const attempts: AttemptRecord[] = [];
    const s = new ChainSummarizer([pin('anthropic', m, { model: 'model-a' }), pin('openai-responses', m, { model: 'model-b' })], {
      keys: fixedKey(),
      clock: recordingClock(),
      policy: { retries: 2 },
      onAttempt: (a) => attempts.push(a),
    });
    const call = await s.summarize(request({ label: 'map 1/3' }), new AbortController().signal);
    expect(call.error).toBeNull();
    expect(call.text).toBe('Objective: from B.');
    expect(call.model).toBe('openai-responses:model-b');
    expect(call.attempts).toBe(4);
    expect(call.finish).toEqual({ raw: 'completed', reason: 'stop' });
    expect(m.requests.map((r) => r.protocol)).toEqual([
      'anthropic-messages',
      'anthropic-messages',
      'anthropic-messages',
      'openai-responses',
    ]);
    expect(attempts.map((a) => [a.result.model, a.attempt, a.label])).toEqual([
      ['anthropic:model-a', 1, 'map 1/3'],
      ['anthropic:model-a', 2, 'map 1/3'],
      ['anthropic:model-a', 3, 'map 1/3'],
      ['openai-responses:model-b', 1, 'map 1/3'],
    ]);
  });

  it('keeps the ledger of a call: every request sent and its cost under the pinned prices', async () => {
    const m = await startMock({
      steps: [
        { when: onAnthropic, fault: { kind: 'http', status: 503 } },
        {
          when: onAnthropic,
          reply: { content: [{ type: 'text', text: 'Objective: cut' }], stop: 'length', usage: { input: 1000, output: 100 } },
        },
        { when: onResponses, reply: { content: [{ type: 'text', text: 'Objective: ok.' }], usage: { input: 2000, output: 300 } } },
      ],
      fallback: { content: [{ type: 'text', text: 'Objective: again.' }] },
    });
    const priced = new ChainSummarizer(
      [pin('anthropic', m, { prices: { input: 3, output: 15 } }), pin('openai-responses', m, { prices: { input: 2, output: 8 } })],
      { keys: fixedKey(), clock: recordingClock() },
    );
    const call = await priced.summarize(request(), new AbortController().signal);
    expect(call.text).toBe('Objective: ok.');
    expect(priced.attemptsOf(call).map((a) => a.result.status)).toEqual([503, 200, 200]);
    expect(priced.sentFor(call).map((x) => x.url)).toEqual(m.requests.map((r) => `${m.url}${r.path}`));
    expect(priced.sentFor(call).map((x) => x.body)).toEqual(m.requests.map((r) => r.body));
    // 503: not billed; the rejected length answer: 0.003 + 0.0015; the answer: 0.004 + 0.0024.
    expect(priced.costFor(call)).toBeCloseTo(0.0109, 10);
    const unpriced = new ChainSummarizer([pin('openai-responses', m)], { keys: fixedKey(), clock: recordingClock() });
    const c2 = await unpriced.summarize(request(), new AbortController().signal);
    expect(c2.text).toBe('Objective: again.');
    expect(unpriced.costFor(c2)).toBeNull();
  });

  it('an incomplete answer is not retried on the same model; the configured fallback is asked', async () => {
    const m = await startMock({
      steps: [
        { when: onAnthropic, reply: { content: [{ type: 'text', text: 'Objective: cut' }], stop: 'length' }, times: 0 },
        { when: onResponses, ...ok('Objective: whole.') },
      ],
    });
    const s = new ChainSummarizer([pin('anthropic', m), pin('openai-responses', m)], { keys: fixedKey(), clock: recordingClock() });
    const call = await s.summarize(request(), new AbortController().signal);
    expect(call.text).toBe('Objective: whole.');
    expect(m.requests.map((r) => r.protocol)).toEqual(['anthropic-messages', 'openai-responses']);
  });

  it('exhaustion: every model failed; the error names each, with its request count; no other model is tried', async () => {
    const m = await startMock({
      steps: [
        { when: onAnthropic, fault: { kind: 'overloaded' }, times: 0 },
        { when: onResponses, fault: { kind: 'http', status: 401 }, times: 0 },
      ],
      fallback: { content: [{ type: 'text', text: 'never' }] },
    });
    const s = new ChainSummarizer([pin('anthropic', m, { model: 'a' }), pin('openai-responses', m, { model: 'b' })], {
      keys: fixedKey(),
      clock: recordingClock(),
      policy: { retries: 1 },
    });
    const call = await s.summarize(request(), new AbortController().signal);
    expect(call.text).toBeNull();
    expect(call.error?.kind).toBe('exhausted');
    expect(call.error?.message).toContain('anthropic:a (2 requests)');
    expect(call.error?.message).toContain('openai-responses:b (1 request)');
    expect(call.model).toBe('openai-responses:b');
    expect(call.attempts).toBe(3);
    expect(m.requests).toHaveLength(3);
  });

  it("a one-model chain reports that model's own error", async () => {
    const m = await startMock({ steps: [{ fault: { kind: 'http', status: 403 }, times: 0 }] });
    const s = new ChainSummarizer([pin('anthropic', m)], { keys: fixedKey(), clock: recordingClock() });
    const call = await s.summarize(request(), new AbortController().signal);
    expect(call.error).toMatchObject({ kind: 'http', status: 403 });
  });

  it('cancellation stops the chain: the next model is never asked', async () => {
    const m = await startMock({
      steps: [
        { when: onAnthropic, fault: { kind: 'http', status: 500 }, times: 0 },
        { when: onResponses, ...ok('never') },
      ],
    });
    const ctl = new AbortController();
    const s = new ChainSummarizer([pin('anthropic', m), pin('openai-responses', m)], {
      keys: fixedKey(),
      clock: recordingClock(() => ctl.abort()),
    });
    const call = await s.summarize(request(), ctl.signal);
    expect(call.error?.kind).toBe('cancelled');
    expect(call.text).toBeNull();
    expect(m.requests.map((r) => r.protocol)).toEqual(['anthropic-messages']);
  });

  it('an overflow goes back to the caller at once, with the reported window, which becomes the known window', async () => {
    const m = await startMock({
      steps: [
        { when: onAnthropic, fault: { kind: 'context_overflow', window: 150_000 }, times: 0 },
        { when: onResponses, ...ok('never') },
      ],
    });
    const s = new ChainSummarizer([pin('anthropic', m, { window: 200_000 }), pin('openai-responses', m)], {
      keys: fixedKey(),
      clock: recordingClock(),
    });
    expect(s.window).toBe(200_000);
    const call = await s.summarize(request(), new AbortController().signal);
    expect(call.error).toMatchObject({ kind: 'overflow', window: 150_000, status: 400 });
    expect(m.requests).toHaveLength(1);
    expect(s.window).toBe(150_000);
  });

  it("window and defaultMaxOutput are the answering model's", async () => {
    const m = await startMock({ steps: [] });
    const anth = new ChainSummarizer([pin('anthropic', m, { window: 200_000 })], { keys: fixedKey() });
    expect(anth.window).toBe(200_000);
    expect(anth.defaultMaxOutput).toBe(8192);
    expect(new ChainSummarizer([pin('openai', m)], { keys: fixedKey() }).defaultMaxOutput).toBeNull();
    expect(new ChainSummarizer([pin('gemini', m, { params: { maxOutput: 4000 } })], { keys: fixedKey() }).defaultMaxOutput).toBe(4000);
    const none = new ChainSummarizer([], { keys: fixedKey() });
    expect(none.window).toBeNull();
    expect((await none.summarize(request(), new AbortController().signal)).error?.kind).toBe('exhausted');
  });

  it('a missing key fails before anything is sent to an official endpoint', async () => {
    const s = new ChainSummarizer([pin('anthropic', await startMock({ steps: [] }), { baseUrl: undefined })], {
      keys: async () => ({ ok: true, value: null }),
    });
    const call = await s.summarize(request(), new AbortController().signal);
    expect(call.error?.message).toContain('ANTHROPIC_API_KEY');
    expect(call.attempts).toBe(0);
  });

  it('records every attempt without the key in URL or body', async () => {
    const m = await startMock({ steps: [{ fault: { kind: 'http', status: 500 } }, ok('Objective: fine.')] });
    const attempts: AttemptRecord[] = [];
    const s = new ChainSummarizer([pin('anthropic', m)], { keys: fixedKey(), clock: recordingClock(), onAttempt: (a) => attempts.push(a) });
    await s.summarize(request({ messages: [{ role: 'user', text: `my key is ${KEY}, summarise` }] }), new AbortController().signal);
    expect(attempts).toHaveLength(2);
    for (const a of attempts) {
      expect(JSON.stringify(a)).not.toContain(KEY);
      expect(a.result.sent?.body).toContain('my key is [REDACTED], summarise');
      expect(Object.keys(a.result.sent ?? {})).toEqual(['url', 'method', 'body', 'bodyBytes']);
    }
    // The key did go to the provider, in a header only.
    expect(m.requests[0]?.redacted.length).toBeGreaterThan(0);
  });
});

describe("cosh's regression: streamed summary, length finish, no loop", () => {
  it('output ceiling 2,000 and finish `length`: exactly one request per summarize call, the connector setting kept, the failure recorded', async () => {
    // The same model for agent and summarizer: an empty chain resolves to the session's connector,
    // whose output setting is the 2,000-token ceiling of the report.
    const m = await startMock({
      steps: [
        {
          reply: {
            content: [{ type: 'text', text: '## Objective\nShip the fix. ## Constraints\nKeep the' }],
            stop: 'length',
            usage: { input: 164_000, output: 2000 },
          },
          times: 0,
        },
      ],
    });
    const connector = pin('anthropic', m, { model: 'glm-5.3-flash', window: 1_000_000, params: { maxOutput: 2000 } });
    const s = new ChainSummarizer(resolveSummarizationModels([], connector), { keys: fixedKey(), clock: recordingClock() });
    const calls = [];
    // Three compaction attempts (one per tool dispatch in the report).
    for (let i = 0; i < 3; i++) calls.push(await s.summarize(request({ label: `one-shot #${i}` }), new AbortController().signal));
    expect(m.requests).toHaveLength(3);
    for (const [i, call] of calls.entries()) {
      expect(call.attempts).toBe(1);
      expect(call.text).toBeNull();
      expect(call.error).toEqual({ kind: 'incomplete', message: 'summarizer response is incomplete (finish reason: max_tokens)' });
      expect(call.finish).toEqual({ raw: 'max_tokens', reason: 'length' });
      expect(call.usage).toMatchObject({ input: 164_000, output: 2000 });
      expect(call.model).toBe('anthropic:glm-5.3-flash');
      // The connector's own setting, neither dropped nor replaced by a derived one.
      expect(sentMaxOutput(m, i)).toBe(2000);
    }
    expect((bodyJson(m.requests[0] as never) as Record<string, unknown>).max_tokens).toBe(2000);
  });

  it('without a connector ceiling the request sends none (Chat Completions), as the manual path that succeeded', async () => {
    const m = await startMock({ steps: [ok('## Objective\nShip the fix.\n## Code & Anchors\nsrc/a.rs')] });
    const s = new ChainSummarizer([pin('openai', m)], { keys: fixedKey(), clock: recordingClock() });
    const call = await s.summarize(request(), new AbortController().signal);
    expect(call.text).toContain('## Code & Anchors');
    expect(sentMaxOutput(m, 0)).toBeUndefined();
    expect(m.requests).toHaveLength(1);
  });
});
