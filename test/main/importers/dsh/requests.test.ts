import { describe, expect, it } from 'vitest';
import { mapFinish, mapUsage } from '../../../../src/main/importers/dsh/blocks';
import { SAMPLES, errors, importFixture, importValues } from './helpers';

const head = { type: 'session', version: 0, id: 's', createdAt: 1, delegationDepth: 0 };
const chunk = (turn: number, step: number, c: Record<string, unknown>) => ({ type: 'assistant/chunk', data: { turn, step, chunk: c } });

describe('requests and responses', () => {
  it('packed-chunks: two calls, the second with cache reads excluded from input', () => {
    const r = importFixture(SAMPLES.packed);
    expect(r.of('request').map((q) => q.id)).toEqual(['req:1', 'req:2']);
    const responses = r.of('response');
    expect(responses[0]?.usage).toEqual({ input: 2878, output: 83, cacheRead: 0, reasoning: 17 });
    expect(responses[1]?.usage).toEqual({ input: 167, output: 52, cacheRead: 2816, reasoning: 21 });
    // The request comes right before the first chunk record of its call, the response right after the finish.
    const first = r.of('request')[0];
    expect(r.events[(first?.seq ?? 0) + 1]).toMatchObject({ kind: 'record', type: 'assistant/chunk', line: 11 });
    const finish = r.events.find((e) => e.kind === 'record' && e.summary === 'finish: tool-calls');
    expect(r.events[(finish?.seq ?? 0) + 1]).toMatchObject({ kind: 'response', request: 'req:1' });
  });

  it('a Ralph child with chunks but no step/start still makes one call', () => {
    const r = importFixture(SAMPLES.ralph1);
    expect(errors(r.diagnostics)).toEqual([]);
    expect(r.of('request')).toHaveLength(1);
    expect(r.of('response')[0]).toMatchObject({ request: 'req:1', finish: { reason: 'tool_calls' }, usage: { input: 30, output: 12 } });
  });

  it('a finish without a usage chunk takes the usage of the step’s assistant/message', () => {
    const r = importValues([
      head,
      { type: 'step/start', data: { turn: 1, step: 1 } },
      chunk(1, 1, { type: 'text-delta', index: 0, text: 'hi' }),
      chunk(1, 1, { type: 'finish', reason: { kind: 'max-tokens' } }),
      {
        type: 'assistant/message',
        data: {
          turn: 1,
          step: 1,
          message: {
            role: 'assistant',
            id: 'a',
            content: [{ type: 'text', text: 'hi' }],
            source: { kind: 'model', provider: 'p', model: 'm' },
          },
          usage: { inputTokens: 5, outputTokens: 1, cacheWriteTokens: 3 },
        },
        surfaceOp: 'append',
      },
    ]);
    const response = r.of('response')[0];
    expect(response).toMatchObject({ finish: { raw: 'max-tokens', reason: 'length' }, usage: { input: 5, output: 1, cacheWrite: 3 } });
    // Still emitted from the finish chunk's line, before the message item.
    expect(response?.line).toBe(4);
    expect(response?.seq).toBeLessThan(r.of('item')[0]?.seq ?? -1);
  });

  it('a second call in the same step starts after a finish; an interrupted stream is answered by its message', () => {
    const r = importValues([
      head,
      { type: 'step/start', data: { turn: 1, step: 1 } },
      chunk(1, 1, { type: 'finish', reason: { kind: 'error', failure: { code: 'RATE_LIMIT', message: 'slow' } } }),
      { type: 'llm/retry', data: { attempt: 1 } },
      chunk(1, 1, { type: 'text-delta', index: 0, text: 'par' }),
      {
        type: 'assistant/message',
        data: {
          turn: 1,
          step: 1,
          interrupted: true,
          message: {
            role: 'assistant',
            id: 'a',
            content: [{ type: 'text', text: 'par' }],
            source: { kind: 'model', provider: 'p', model: 'm' },
          },
        },
        surfaceOp: 'append',
      },
    ]);
    expect(r.of('request').map((q) => q.id)).toEqual(['req:1', 'req:2']);
    expect(r.of('response')).toMatchObject([
      { request: 'req:1', finish: { reason: 'error' }, error: { code: 'RATE_LIMIT', message: 'slow' } },
      { request: 'req:2', finish: { raw: 'interrupted', reason: 'cancelled' } },
    ]);
    expect(r.of('record').find((e) => e.type === 'llm/retry')?.summary).toBe('attempt 1');
  });

  it('a call without a finish at the end of the log is reported, not invented', () => {
    const r = importValues([head, chunk(1, 1, { type: 'text-delta', index: 0, text: 'x' })]);
    expect(r.of('response')).toEqual([]);
    expect(r.diagnostics.map((d) => [d.rule, d.severity])).toEqual([['DSH_UNFINISHED_REQUEST', 'info']]);
  });

  it('normalises finish reasons and usage', () => {
    expect(mapFinish({ kind: 'stop' }).finish).toEqual({ raw: 'stop', reason: 'stop' });
    expect(mapFinish({ kind: 'tool-calls' }).finish.reason).toBe('tool_calls');
    expect(mapFinish({ kind: 'max-tokens' }).finish.reason).toBe('length');
    expect(mapFinish({ kind: 'length' }).finish.reason).toBe('length');
    expect(mapFinish({ kind: 'aborted', failure: { code: 'ABORTED', message: 'x' } })).toEqual({
      finish: { raw: 'aborted', reason: 'cancelled' },
      error: { code: 'ABORTED', message: 'x' },
    });
    expect(mapFinish({ kind: 'something-new' }).finish).toEqual({ raw: 'something-new', reason: 'unknown' });
    expect(mapFinish(undefined).finish).toEqual({ raw: 'unknown', reason: 'unknown' });
    expect(mapUsage({ inputTokens: 1, outputTokens: 2, cacheReadTokens: 3, cacheWriteTokens: 4, reasoningTokens: 5 })).toEqual({
      input: 1,
      output: 2,
      cacheRead: 3,
      cacheWrite: 4,
      reasoning: 5,
    });
    expect(mapUsage({ inputTokens: -1 })).toBeUndefined();
  });
});
