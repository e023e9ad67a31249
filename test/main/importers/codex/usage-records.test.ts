import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ev, importValues } from './helpers';

/**
 * Codex 0.171 `token_usage_record`: the usage of one response, written as the response completes,
 * before the call's tool outputs and before the token_count that reports the same usage. The
 * lines are those of a real run (fixtures/fidelity, tools-resume).
 */
const ROLLOUT = fileURLToPath(
  new URL(
    '../../../../fixtures/fidelity/logs/codex-0.171.0/tools-resume/sessions/2026/11/30/rollout-2026-11-30T00-21-38-01a229d4-2410-7270-961e-0f45cea87215.jsonl',
    import.meta.url,
  ),
);
const PATH = 'rollout-2026-11-30T00-21-38-01a229d4-2410-7270-961e-0f45cea87215.jsonl';
const lines = readFileSync(ROLLOUT, 'utf8')
  .split('\n')
  .filter((l) => l !== '')
  .map((l) => JSON.parse(l) as Record<string, unknown>);
/** Line `n` of the rollout (1-based). */
const at = (n: number): Record<string, unknown> => lines[n - 1] as Record<string, unknown>;

/** resp_mock_0000's usage as the record has it: 9,532 input (none cached), 22 output. */
const FIRST_CALL = { input: 9532, cacheRead: 0, output: 22, reasoning: 0, context: 9532 };

describe('Codex 0.171 token_usage_record', () => {
  it('the lines used here are what the test says they are', () => {
    expect(at(11)).toMatchObject({ type: 'response_item', payload: { type: 'message', role: 'assistant' } });
    expect(at(12)).toMatchObject({ type: 'response_item', payload: { type: 'function_call' } });
    expect(at(13)).toMatchObject({
      type: 'token_usage_record',
      payload: {
        response_id: 'resp_mock_0000',
        usage: { input_tokens: 9532, cached_input_tokens: 0, output_tokens: 22, reasoning_output_tokens: 0, total_tokens: 9554 },
      },
    });
    expect(at(15)).toMatchObject({ type: 'response_item', payload: { type: 'function_call_output' } });
    expect(at(16)).toMatchObject({
      type: 'event_msg',
      payload: { type: 'token_count', info: { last_token_usage: { input_tokens: 9532, output_tokens: 22 } } },
    });
  });

  it('in the whole rollout, every agent call has the usage of its record (the token_count repeats it)', () => {
    const r = importValues(lines, PATH);
    const records = lines
      .filter((v) => v.type === 'token_usage_record')
      .map((v) => (v.payload as { usage: { input_tokens: number; cached_input_tokens: number; output_tokens: number } }).usage);
    const responses = r.of('response');
    expect(r.of('request').map((q) => q.purpose)).toEqual(['agent', 'agent', 'agent', 'agent', 'agent']);
    expect(responses.map((x) => [x.usage?.context, x.usage?.cacheRead, x.usage?.output])).toEqual(
      records.map((u) => [u.input_tokens, u.cached_input_tokens, u.output_tokens]),
    );
    // Each response is still written at its token_count, and each record stays a record.
    expect(responses[0]?.line).toBe(16);
    expect(
      r
        .of('record')
        .filter((x) => x.type === 'token_usage_record')
        .map((x) => x.summary),
    ).toEqual([
      'usage of resp_mock_0000',
      'usage of resp_mock_0001',
      'usage of resp_mock_0002',
      'usage of resp_mock_0003',
      'usage of resp_mock_0004',
    ]);
  });

  it('a call that no token_count closes (the turn aborted while its tool ran) gets the usage of its record', () => {
    const r = importValues([...lines.slice(0, 15), ev({ type: 'turn_aborted', reason: 'interrupted' })], PATH);
    const req = r.of('request');
    expect(req.map((q) => q.id)).toEqual(['req:1']);
    const resp = r.of('response');
    expect(resp).toHaveLength(1);
    expect(resp[0]).toMatchObject({ request: 'req:1', finish: { raw: 'turn_aborted', reason: 'cancelled' }, usage: FIRST_CALL, line: 16 });
  });

  it('a token_count that reports the same response after the call was closed is not a second call', () => {
    const r = importValues([...lines.slice(0, 15), ev({ type: 'turn_aborted', reason: 'interrupted' }), at(16)], PATH);
    expect(r.of('request').map((q) => q.id)).toEqual(['req:1']);
    expect(r.of('response').map((x) => x.usage)).toEqual([FIRST_CALL]);
    expect(r.diagnostics.map((d) => d.rule)).not.toContain('CODEX_USAGE_WITHOUT_OUTPUT');
    expect(r.of('record').find((x) => x.line === 17)).toMatchObject({
      type: 'event_msg/token_count',
      summary: 'the previous usage report again (no new model call)',
    });
  });

  it('a log cut short after the record still gives the call its usage', () => {
    const r = importValues(lines.slice(0, 13), PATH);
    expect(r.of('response')).toEqual([expect.objectContaining({ request: 'req:1', usage: FIRST_CALL })]);
  });
});
