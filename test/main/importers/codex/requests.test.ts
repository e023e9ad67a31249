import { describe, expect, it } from 'vitest';
import { call, complete, ev, importValues, meta, out, say, started, think, tokens, turnContext, user, views } from './helpers';

/** One turn of two model calls, as Codex 0.104 logs it. */
function twoCalls() {
  return [
    meta(),
    started(),
    user('List the files.'),
    turnContext(),
    ev({ type: 'token_count', info: null, rate_limits: {} }),
    think(),
    say('Looking.', 'commentary'),
    call('c1'),
    tokens({ input: 17_088, cached: 3_456, output: 350, reasoning: 152 }, 17_438),
    out('c1', 'a.txt'),
    turnContext(),
    tokens({ input: 17_088, cached: 3_456, output: 350, reasoning: 152 }, 17_438),
    think(),
    say('One file: a.txt.'),
    tokens({ input: 18_686, cached: 17_408, output: 456, reasoning: 285 }, 36_580),
    complete(),
  ];
}

describe('model calls', () => {
  it('one request per sampling round, emitted before its first output item; the response at its token_count', () => {
    const r = importValues(twoCalls());
    const order = r.events
      .map((e) =>
        e.kind === 'item'
          ? `item:${e.item.id}`
          : e.kind === 'request'
            ? `request:${e.id}`
            : e.kind === 'response'
              ? `response:${e.request}`
              : null,
      )
      .filter(Boolean);
    expect(order).toEqual([
      'item:L3',
      'request:req:1',
      'item:L6',
      'item:L7',
      'item:L8',
      'response:req:1',
      'item:L10',
      'request:req:2',
      'item:L13',
      'item:L14',
      'response:req:2',
    ]);
    expect(r.of('response').map((e) => e.line)).toEqual([9, 15]);
  });

  it('usage: input excludes cached tokens, context is input_tokens as OpenAI counts it', () => {
    const r = importValues(twoCalls());
    expect(r.of('response').map((e) => e.usage)).toEqual([
      { input: 13_632, cacheRead: 3_456, output: 350, reasoning: 152, context: 17_088 },
      { input: 1_278, cacheRead: 17_408, output: 456, reasoning: 285, context: 18_686 },
    ]);
    const { view } = views(r);
    expect(view(0).request.reportedInputTokens).toBe(17_088);
    expect(view(1).request.reportedInputTokens).toBe(18_686);
  });

  it('the view at a request is the history before the call: its own outputs are not in it', () => {
    const { view } = views(importValues(twoCalls()));
    expect(view(0).items.map((i) => i.id)).toEqual(['L3']);
    expect(view(1).items.map((i) => i.id)).toEqual(['L3', 'L6', 'L7', 'L8', 'L10']);
    expect(view(1).system).toEqual([{ type: 'text', text: 'You are Codex.' }]);
    expect(view(1).request.route).toEqual({ provider: 'openai', window: 258_400, model: 'gpt-5.3-codex', reasoning: 'high' });
    expect(view(1).unknowns).toContain('tool schemas: the log does not record them');
  });

  it('repeated totals, rate-limit-only reports and unchanged turn contexts are records', () => {
    const r = importValues(twoCalls());
    expect(r.of('record').map((e) => [e.line, e.type, e.summary])).toEqual([
      [5, 'event_msg/token_count', 'rate limits only, no usage'],
      [11, 'turn_context', 'gpt-5.3-codex, high'],
      [12, 'event_msg/token_count', 'the previous usage report again (no new model call)'],
    ]);
    expect(r.of('header').map((e) => e.route)).toEqual([
      { provider: 'openai' },
      { window: 258_400 },
      { model: 'gpt-5.3-codex', reasoning: 'high' },
    ]);
  });

  it('an output after inputs with no usage report in between starts a new call; the old one ends without usage', () => {
    const r = importValues([meta(), started(), user('Go'), call('c1'), out('c1'), call('c2'), tokens({ input: 100 }, 100), complete()]);
    expect(r.of('request').map((e) => e.line)).toEqual([4, 6]);
    expect(r.of('response').map((e) => [e.request, e.line, e.usage?.context])).toEqual([
      ['req:1', 6, undefined],
      ['req:2', 7, 100],
    ]);
  });

  it('a usage report with no output item before it is a call of its own, said once', () => {
    const r = importValues([meta(), started(), user('Go'), tokens({ input: 500, output: 7 }, 507), complete()]);
    expect(r.of('request').map((e) => [e.line, e.purpose])).toEqual([[4, 'agent']]);
    expect(r.of('response')[0]).toMatchObject({ line: 4, usage: { input: 500, context: 500, output: 7 } });
    expect(r.diagnostics.map((d) => [d.rule, d.severity, d.line])).toEqual([['CODEX_USAGE_WITHOUT_OUTPUT', 'info', 4]]);
  });

  it('an aborted turn ends its open call as cancelled; turns are lifecycle boundaries', () => {
    const r = importValues([
      meta(),
      started(),
      user('Go'),
      think(),
      ev({ type: 'turn_aborted', reason: 'interrupted' }),
      started(),
      user('Again'),
      complete(),
    ]);
    expect(r.of('response')[0]).toMatchObject({ finish: { raw: 'turn_aborted', reason: 'cancelled' } });
    expect(r.of('lifecycle').map((e) => [e.boundary, e.turn])).toEqual([
      ['turn-start', 1],
      ['turn-end', 1],
      ['turn-start', 2],
      ['turn-end', 2],
    ]);
    expect(r.of('record').find((e) => e.type === 'event_msg/turn_aborted')?.summary).toBe('turn aborted: interrupted');
  });

  it('a turn that ends with an error keeps the error as a record before its turn-end; a clean end leaves none', () => {
    const failed = ev({
      type: 'task_complete',
      turn_id: 't',
      last_agent_message: null,
      error: { message: 'Selected model is at capacity. Please try a different model.', codex_error_info: 'server_overloaded' },
    });
    const r = importValues([meta(), started(), user('Go'), failed, started(), user('Again'), complete()]);
    const errs = r.of('record').filter((e) => e.type === 'event_msg/task_complete');
    expect(errs.map((e) => [e.summary, e.line])).toEqual([
      ['error: Selected model is at capacity. Please try a different model. (server_overloaded)', 4],
    ]);
    const end = r.of('lifecycle').find((e) => e.boundary === 'turn-end');
    expect(end && errs[0] && errs[0].seq < end.seq).toBe(true);
    expect(r.of('lifecycle').map((e) => e.boundary)).toEqual(['turn-start', 'turn-end', 'turn-start', 'turn-end']);
  });

  it('model and effort changes are headers; the window comes from task_started and token_count', () => {
    const r = importValues([
      meta(),
      started(200_000),
      user('a'),
      turnContext('gpt-5.3-codex', 'high'),
      say('x'),
      tokens({ input: 10 }, 10, 272_000),
      complete(),
      started(272_000),
      user('b'),
      turnContext('gpt-5.3-codex', 'medium'),
      say('y'),
      tokens({ input: 20 }, 30, 272_000),
      complete(),
    ]);
    expect(r.of('header').map((e) => [e.line, e.route])).toEqual([
      [1, { provider: 'openai' }],
      [2, { window: 200_000 }],
      [4, { model: 'gpt-5.3-codex', reasoning: 'high' }],
      [6, { window: 272_000 }],
      [10, { reasoning: 'medium' }],
    ]);
  });
});
