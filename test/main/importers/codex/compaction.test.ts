import { describe, expect, it } from 'vitest';
import { SUMMARY_PREFIX } from '../../../../src/main/importers/codex/known';
import { fatesAt } from '../../../../src/shared/replay/view';
import {
  call,
  compacted,
  complete,
  dev,
  errors,
  estimate,
  ev,
  importValues,
  item,
  line,
  meta,
  out,
  payload,
  say,
  started,
  tokens,
  turnContext,
  user,
  views,
} from './helpers';

const SUMMARY = `${SUMMARY_PREFIX}\nWe renamed the flag; tests pass.`;

/** Two turns, then a mid-turn local compaction that keeps both user messages and adds the summary. */
function local() {
  const u1 = user('Add a --dry-run flag.');
  const u2 = user('Also print what would be pushed.');
  return [
    meta(),
    started(),
    u1,
    turnContext(),
    call('c1'),
    tokens({ input: 1000, cached: 0, output: 10 }, 1010),
    out('c1', 'ok'),
    say('Added.'),
    tokens({ input: 1100, cached: 900, output: 20 }, 2130),
    complete(),
    started(),
    u2,
    turnContext(),
    call('c2'),
    tokens({ input: 1200, cached: 1000, output: 30 }, 3360),
    out('c2', 'done'),
    // The summarizer call's usage, then the new history, then Codex's re-estimate.
    tokens({ input: 1300, cached: 1200, output: 400 }, 5060),
    compacted(SUMMARY, [payload(u1), payload(u2), payload(user(SUMMARY))]),
    estimate(420, 5060),
    ev({ type: 'context_compacted' }),
    turnContext(),
    say('Printing the list now.'),
    tokens({ input: 450, cached: 0, output: 15 }, 5525),
    complete(),
  ];
}

describe('local compaction with replacement_history', () => {
  it('is one committed bracket: start, summarizer call with its usage, summary, checkpoint, copies, end', () => {
    const r = importValues(local());
    const kinds = r.events
      .filter((e) => e.line >= 17 && e.line <= 19)
      .map((e) => (e.kind === 'item' ? `item:${e.item.id}:${e.op.op}` : e.kind));
    expect(kinds).toEqual([
      'compaction/start',
      'request',
      'response',
      'compaction/summary',
      'item:L18.r2:append',
      'item:L18.r0:insert',
      'item:L18.r1:insert',
      'record',
      'compaction/end',
    ]);
    const start = r.of('compaction/start')[0];
    expect(start).toMatchObject({
      id: 'cmp:L18',
      trigger: 'auto',
      strategy: 'local',
      preTokens: 1230,
      policy: { window: 258_400 },
      source: ['L3', 'L5', 'L7', 'L8', 'L12', 'L14', 'L16'],
    });
    const req = r.of('request').find((e) => e.purpose === 'compaction');
    expect(req).toMatchObject({ compactionId: 'cmp:L18', input: { items: start?.source, instruction: null } });
    expect(r.of('response').find((e) => e.request === req?.id)).toMatchObject({
      line: 17,
      usage: { input: 100, cacheRead: 1200, output: 400, context: 1300 },
    });
    expect(r.of('compaction/summary')[0]).toMatchObject({ summary: [{ type: 'text', text: SUMMARY }], request: req?.id });
    expect(r.of('compaction/end')[0]).toMatchObject({ id: 'cmp:L18', outcome: 'committed', postTokens: 420, line: 18 });
    expect(errors(r.diagnostics)).toEqual([]);
  });

  it('the summary message is a checkpoint covering the old history; retained user messages are re-injected copies', () => {
    const r = importValues(local());
    const ck = r.of('item').find((e) => e.item.id === 'L18.r2');
    expect(ck?.item).toMatchObject({
      role: 'user',
      meta: true,
      derivation: { kind: 'checkpoint', compactionId: 'cmp:L18', covers: ['L3', 'L5', 'L7', 'L8', 'L12', 'L14', 'L16'], part: 'summary' },
    });
    const start = r.of('compaction/start')[0];
    const summary = r.of('compaction/summary')[0];
    expect(ck?.sources?.slice(0, 2)).toEqual([start?.seq, summary?.seq]);
    expect(ck?.sources).toHaveLength(2 + 7);
    const copies = r.of('item').filter((e) => e.item.derivation?.kind === 'reinjected');
    expect(copies.map((e) => [e.item.id, e.item.derivation, e.op])).toEqual([
      ['L18.r0', { kind: 'reinjected', of: ['L3'] }, { op: 'insert', before: 'L18.r2' }],
      ['L18.r1', { kind: 'reinjected', of: ['L12'] }, { op: 'insert', before: 'L18.r2' }],
    ]);
  });

  it('the view after it: the copies, then the summary; fates say summarised or re-injected', () => {
    const r = importValues(local());
    const { state, view } = views(r);
    const last = state.requests.length - 1;
    expect(view(last).items.map((i) => [i.id, i.kind])).toEqual([
      ['L18.r0', 'user'],
      ['L18.r1', 'user'],
      ['L18.r2', 'checkpoint'],
    ]);
    const fates = Object.fromEntries(fatesAt(state, last).map((f) => [f.id, f.fate]));
    expect(fates.L3).toEqual({ fate: 'reinjected', by: 'L18.r0' });
    expect(fates.L5).toEqual({ fate: 'summarised', compactionId: 'cmp:L18', by: 'L18.r2' });
    expect(state.compactions[0]).toMatchObject({ outcome: 'committed', preTokens: 1230, postTokens: 420, checkpointItems: ['L18.r2'] });
    expect(state.diagnostics).toEqual([]);
  });
});

describe('legacy compaction (no replacement_history)', () => {
  function legacy(big: string) {
    return [
      meta(),
      dev('<permissions>sandboxed</permissions>'),
      user('<environment_context><cwd>/work</cwd></environment_context>'),
      started(),
      user('first'),
      say('one'),
      tokens({ input: 100 }, 100),
      complete(),
      started(),
      user(big),
      say('two'),
      tokens({ input: 200 }, 300),
      complete(),
      started(),
      user('third'),
      say('working', 'commentary'),
      tokens({ input: 23_000, output: 50 }, 23_350),
      compacted('Summary: did things.'),
      say('three'),
      tokens({ input: 400 }, 23_750),
      complete(),
    ];
  }

  it('is rebuilt by Codex rule: initial context, newest user messages within 20,000 tokens (one cut), summary', () => {
    const big = `${'x'.repeat(45_000)}${'y'.repeat(45_000)}`;
    const r = importValues(legacy(big));
    const { state, view } = views(r);
    const last = state.requests.length - 1;
    const v = view(last);
    expect(v.items.map((i) => [i.id, i.kind, i.derivation?.kind ?? null, i.meta])).toEqual([
      ['L18.r0', 'system', 'reinjected', false],
      ['L18.r1', 'user', 'reinjected', true],
      ['L18.r2', 'user', 'reinjected', false],
      ['L18.r3', 'user', 'reinjected', false],
      ['L18.r4', 'checkpoint', 'checkpoint', true],
    ]);
    expect(v.items[0]?.derivation).toEqual({ kind: 'reinjected', of: ['L2'] });
    expect(v.items[2]?.derivation).toEqual({ kind: 'reinjected', of: ['L10'] });
    expect(v.items[3]?.derivation).toEqual({ kind: 'reinjected', of: ['L15'] });
    // 'third' costs 2 tokens; the big one gets the 19,998 left, and Codex cut it where the log does
    // not record: the copy holds the whole message, from its own line, masked as unknown.
    expect(v.items[2]).toMatchObject({ rendition: 'masked', blocks: null });
    const copy = r.of('item').find((e) => e.item.id === 'L18.r2');
    expect(copy?.item.blocks).toEqual([{ type: 'text', text: big }]);
    expect(copy?.item.origin).toBe('rebuilt: user message cut to the token budget');
    expect(copy?.line).toBe(10);
    expect(r.of('mask')).toMatchObject([{ items: ['L18.r2'], masked: true, by: 'harness' }]);
    expect(v.unknowns).toContain('masked item L18.r2: the text of its reference is not recorded');
    const summary = v.items[4]?.blocks?.[0];
    expect(summary).toEqual({ type: 'text', text: `${SUMMARY_PREFIX}\nSummary: did things.` });
    // 'first' does not fit any more: summarised.
    expect(fatesAt(state, last).find((f) => f.id === 'L5')?.fate).toEqual({ fate: 'summarised', compactionId: 'cmp:L18', by: 'L18.r4' });
    const note = r.diagnostics.find((d) => d.rule === 'CODEX_LEGACY_COMPACTION');
    expect(note).toMatchObject({ severity: 'info', line: 18 });
    expect(note?.message).toMatch(
      /rebuilt by Codex's rule.*initial context recorded at line 2 \(2 messages\).*2 of 3 user messages.*4 bytes per token.*cut to the budget, where Codex cut it is not recorded, so it is shown as unknown/,
    );
    expect(r.of('compaction/start')[0]).toMatchObject({ strategy: 'local (rebuilt: no replacement_history)', preTokens: 23_050 });
  });

  it('keeps a summary that already carries the prefix as it is', () => {
    const vals = legacy('second');
    vals[17] = compacted(SUMMARY);
    const r = importValues(vals);
    const ck = r.of('item').find((e) => e.item.derivation?.kind === 'checkpoint');
    expect(ck?.item.blocks).toEqual([{ type: 'text', text: SUMMARY }]);
    expect(
      r
        .of('item')
        .filter((e) => e.item.derivation?.kind === 'reinjected')
        .map((e) => e.item.blocks),
    ).toContainEqual([{ type: 'text', text: 'second' }]);
  });
});

describe('remote compaction', () => {
  function remote() {
    const u1 = user('Refactor sync.');
    const a1 = say('Refactored.');
    return [
      meta(),
      dev('<permissions>…</permissions>'),
      started(),
      u1,
      turnContext(),
      call('c1'),
      tokens({ input: 200_000, cached: 190_000, output: 500 }, 200_500),
      out('c1', 'ok'),
      a1,
      tokens({ input: 209_000, cached: 200_000, output: 900 }, 410_400),
      estimate(940_499, 410_400),
      compacted('', [
        payload(u1),
        payload(a1),
        payload(dev('<permissions>new</permissions>')),
        { type: 'compaction', encrypted_content: 'gAAAAB'.repeat(100) },
      ]),
      ev({ type: 'context_compacted' }),
      turnContext(),
      estimate(940_499, 410_400),
      call('c2'),
      tokens({ input: 48_297, cached: 22_912, output: 390 }, 459_087),
      out('c2', 'ok'),
      complete(),
    ];
  }

  it('the encrypted compaction item is an opaque checkpoint; the summary is opaque too; nothing is invented', () => {
    const r = importValues(remote());
    const ck = r.of('item').find((e) => e.item.derivation?.kind === 'checkpoint');
    expect(ck?.item).toMatchObject({
      id: 'L12.r3',
      role: 'assistant',
      origin: 'compaction',
      blocks: [{ type: 'opaque', label: 'codex:compaction (encrypted)', chars: 600 }],
      derivation: { kind: 'checkpoint', compactionId: 'cmp:L12', covers: ['L2', 'L4', 'L6', 'L8', 'L9'] },
    });
    expect(r.of('compaction/summary')[0]?.summary).toEqual([{ type: 'opaque', label: 'codex:compaction (encrypted)', chars: 600 }]);
    expect(r.of('compaction/start')[0]).toMatchObject({ strategy: 'remote', trigger: 'auto', preTokens: 209_900 });
    // The compact endpoint's usage is not logged: the response has none.
    const req = r.of('request').find((e) => e.purpose === 'compaction');
    expect(r.of('response').find((e) => e.request === req?.id)?.usage).toBeUndefined();
  });

  it('the view right after starts with the retained items and ends with the opaque item', () => {
    const r = importValues(remote());
    const { state, view } = views(r);
    const after = state.requests.findIndex((q) => q.purpose === 'agent' && q.seq > (state.compactions[0]?.endSeq ?? 0));
    const v = view(after);
    expect(v.items.map((i) => [i.id, i.kind, i.derivation?.kind ?? null])).toEqual([
      ['L12.r0', 'user', 'reinjected'],
      ['L12.r1', 'assistant', 'reinjected'],
      ['L12.r2', 'system', null],
      ['L12.r3', 'checkpoint', 'checkpoint'],
    ]);
    expect(v.items[2]?.derivation).toBeNull();
    expect(v.request.reportedInputTokens).toBe(48_297);
  });

  it("Codex's own estimate over the window is not used as postTokens, and is explained with the next provider count", () => {
    const r = importValues(remote());
    expect(r.of('compaction/end')[0]?.postTokens).toBeUndefined();
    const d = r.diagnostics.find((x) => x.rule === 'CODEX_TOKEN_ESTIMATE');
    expect(d).toMatchObject({ severity: 'info', line: 11 });
    expect(d?.message).toMatch(/940499 tokens, more than the model window \(258400\).*line 17\) is 48297 input tokens/);
    expect(
      r
        .of('record')
        .filter((e) => e.type === 'event_msg/token_count')
        .map((e) => e.summary),
    ).toContain("Codex's own estimate of the history: 940499 tokens (not a provider count)");
  });
});

describe('compaction edge cases', () => {
  it('an unusable estimate with no model call after it is still explained', () => {
    const r = importValues([
      meta(),
      started(),
      user('hi'),
      say('hello'),
      tokens({ input: 10 }, 10),
      estimate(900_000, 10),
      compacted(SUMMARY, [payload(user(SUMMARY))]),
    ]);
    expect(r.of('compaction/end')[0]?.postTokens).toBeUndefined();
    expect(r.diagnostics.find((d) => d.rule === 'CODEX_TOKEN_ESTIMATE')?.message).toMatch(/900000 tokens.*No model call follows it/);
  });

  it('/compact as a turn of its own is manual', () => {
    const r = importValues([
      meta(),
      started(),
      user('hi'),
      say('hello'),
      tokens({ input: 10 }, 10),
      complete(),
      started(),
      tokens({ input: 50, output: 20 }, 80),
      compacted(SUMMARY, [payload(user('hi')), payload(user(SUMMARY))]),
      complete(),
    ]);
    expect(r.of('compaction/start')[0]?.trigger).toBe('manual');
    // The summarizer's usage went to the compaction request, not to an agent call.
    expect(r.of('request').map((e) => e.purpose)).toEqual(['agent', 'compaction']);
    expect(r.diagnostics.filter((d) => d.rule === 'CODEX_USAGE_WITHOUT_OUTPUT')).toEqual([]);
  });

  it('a new history without a summary item: the old history is dropped, the new one placed, with a warning', () => {
    const r = importValues([meta(), started(), user('hi'), say('hello'), compacted('', [payload(user('hi'))]), complete()]);
    expect(r.of('drop')[0]).toMatchObject({ items: ['L3', 'L4'], reason: 'compaction', compactionId: 'cmp:L5' });
    expect(r.of('item').at(-1)?.item).toMatchObject({ id: 'L5.r0', derivation: { kind: 'reinjected', of: ['L3'] } });
    expect(r.diagnostics.map((d) => [d.rule, d.severity, d.line])).toEqual([['CODEX_COMPACTION_SHAPE', 'warning', 5]]);
  });

  it('an unknown item type inside replacement_history is left out and counted', () => {
    const r = importValues([
      meta(),
      started(),
      user('hi'),
      compacted(SUMMARY, [{ type: 'future_item' }, payload(user(SUMMARY))]),
      complete(),
    ]);
    expect(r.diagnostics.map((d) => d.rule)).toEqual(['CODEX_BAD_CONTENT', 'UNKNOWN_RECORDS']);
    expect(r.of('item').map((e) => e.item.id)).toEqual(['L3', 'L4.r1']);
  });

  it('a second compaction matches the copies of the first', () => {
    const u = user('keep me');
    const r = importValues([
      meta(),
      started(),
      u,
      say('ok'),
      compacted(SUMMARY, [payload(u), payload(user(SUMMARY))]),
      say('more'),
      compacted(SUMMARY, [payload(u), payload(user(SUMMARY))]),
      complete(),
    ]);
    const second = r.of('item').find((e) => e.item.id === 'L7.r0');
    expect(second?.item.derivation).toEqual({ kind: 'reinjected', of: ['L5.r0'] });
    expect(r.of('item').find((e) => e.item.id === 'L7.r1')?.item.derivation).toMatchObject({ covers: ['L5.r0', 'L5.r1', 'L6'] });
    expect(item).toBeDefined();
  });
});

describe('Codex 0.171: the summarizer reply is logged', () => {
  const usageRecord = (input: number, output: number) =>
    line('token_usage_record', {
      response_id: 'resp_x',
      usage: {
        input_tokens: input,
        cached_input_tokens: 0,
        output_tokens: output,
        reasoning_output_tokens: 0,
        total_tokens: input + output,
      },
    });
  const reply = 'Checkpoint: greeting printed. Next: answer the follow-up.';

  it('takes the assistant message before `compacted` as the summarizer output, not as an agent call', () => {
    const u1 = user('Print a greeting.');
    const r = importValues([
      meta(),
      started(),
      u1,
      say('Done.'),
      tokens({ input: 1000, output: 20 }, 1020),
      complete(),
      started(),
      tokens({ input: 1000, output: 20 }, 1020),
      say(reply),
      usageRecord(400, 40),
      tokens({ input: 400, output: 40 }, 1460),
      compacted(`${SUMMARY_PREFIX}\n${reply}`, [payload(u1), payload(user(`${SUMMARY_PREFIX}\n${reply}`))]),
      user('What did it print?'),
      say('hello'),
      tokens({ input: 500, output: 5 }, 1965),
      complete(),
    ]);
    expect(errors(r.diagnostics)).toEqual([]);
    const reqs = r.of('request');
    expect(reqs.map((q) => q.purpose)).toEqual(['agent', 'compaction', 'agent']);
    expect(reqs[1]).toMatchObject({ compactionId: 'cmp:L12', input: { items: ['L3', 'L4'], instruction: null } });
    const resp = r.of('response').find((x) => x.request === reqs[1]?.id);
    expect(resp?.usage).toMatchObject({ input: 400, output: 40 });
    expect(r.of('compaction/summary')[0]?.usage).toMatchObject({ input: 400, output: 40 });
    const replyItem = r.of('item').find((e) => e.item.id === 'L9');
    expect(replyItem?.op.op).toBe('log');
    expect(r.of('compaction/start')[0]).toMatchObject({ trigger: 'unknown', preTokens: 1020 });
    const { state } = views(r);
    expect(state.requests).toHaveLength(3);
  });

  it('a summary cut at the output limit is a failed compaction with its usage, and no agent call', () => {
    const u1 = user('Print a greeting.');
    const r = importValues([
      meta(),
      started(),
      u1,
      say('Done.'),
      tokens({ input: 1000, output: 20 }, 1020),
      complete(),
      started(),
      tokens({ input: 1000, output: 20 }, 1020),
      usageRecord(400, 128),
      tokens({ input: 1000, output: 20 }, 1548),
      user('Follow-up?'),
      ev({
        type: 'task_complete',
        turn_id: 't',
        last_agent_message: null,
        error: { message: 'Incomplete response returned, reason: max_output_tokens', codex_error_info: 'other' },
      }),
    ]);
    expect(errors(r.diagnostics)).toEqual([]);
    const reqs = r.of('request');
    expect(reqs.map((q) => q.purpose)).toEqual(['agent', 'compaction']);
    expect(reqs[1]).toMatchObject({ compactionId: 'cmp:L9', input: { items: ['L3', 'L4'], instruction: null } });
    const resp = r.of('response').find((x) => x.request === reqs[1]?.id);
    expect(resp).toMatchObject({ usage: { input: 400, output: 128 }, finish: { raw: 'max_output_tokens', reason: 'length' } });
    expect(r.of('compaction/summary-error')[0]).toMatchObject({ id: 'cmp:L9', usage: { output: 128 }, error: { code: 'other' } });
    expect(r.of('compaction/end')[0]).toMatchObject({ id: 'cmp:L9', outcome: 'failed' });
    expect(r.of('compaction/summary')).toHaveLength(0);
    // The history is unchanged; the turn's user message still enters it.
    expect(r.of('item').find((e) => e.item.id === 'L11')?.op.op).toBe('append');
  });

  it('an ordinary final reply is still an agent call', () => {
    const r = importValues([
      meta(),
      started(),
      user('hi'),
      say('hello'),
      usageRecord(10, 1),
      tokens({ input: 10, output: 1 }, 11),
      complete(),
    ]);
    expect(r.of('request').map((q) => q.purpose)).toEqual(['agent']);
    expect(r.of('item').find((e) => e.item.id === 'L4')?.op.op).toBe('append');
  });
});

describe('the trigger of a compaction no turn start brackets (Codex 0.7x logs none)', () => {
  const u1 = user('Add a --dry-run flag.');
  const summary = [payload(u1), payload(user(SUMMARY))];

  it('is auto right after a tool output: only the agent loop compacts between a tool output and the next call', () => {
    const r = importValues([
      meta(),
      u1,
      turnContext(),
      call('c1'),
      tokens({ input: 1000, output: 10 }, 1010),
      out('c1', 'ok'),
      tokens({ input: 1100, output: 400 }, 1510),
      compacted(SUMMARY, summary),
    ]);
    expect(r.of('compaction/start')[0]?.trigger).toBe('auto');
  });

  it('stays unknown after the model answered, where /compact could have run as well', () => {
    const r = importValues([
      meta(),
      u1,
      turnContext(),
      say('Added.'),
      tokens({ input: 1000, output: 10 }, 1010),
      tokens({ input: 1100, output: 400 }, 1510),
      compacted(SUMMARY, summary),
    ]);
    expect(r.of('compaction/start')[0]?.trigger).toBe('unknown');
  });
});
