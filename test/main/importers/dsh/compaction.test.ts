import { describe, expect, it } from 'vitest';
import { type Imported, SAMPLES, errors, importFixture, importValues } from './helpers';

function compactionShape(r: Imported) {
  const starts = r.of('compaction/start');
  const summaries = r.of('compaction/summary');
  const ends = r.of('compaction/end');
  const checkpoints = r.of('item').filter((e) => e.item.derivation?.kind === 'checkpoint');
  return { starts, summaries, ends, checkpoints };
}

describe('compaction-recovery', () => {
  const r = importFixture(SAMPLES.compaction);

  it('imports without errors', () => {
    expect(errors(r.diagnostics)).toEqual([]);
  });

  it('is exactly one compaction: start, summary, checkpoint replacing the first user message, end committed', () => {
    const { starts, summaries, ends, checkpoints } = compactionShape(r);
    expect(starts).toHaveLength(1);
    expect(summaries).toHaveLength(1);
    expect(ends).toHaveLength(1);
    expect(checkpoints).toHaveLength(1);
    const id = '338e88fa-e78b-4d49-bd38-8f919e85f5e1';
    const firstUser = r.of('item').find((e) => e.item.role === 'user');
    expect(firstUser?.item.id).toBe('dsh:4');

    expect(starts[0]).toMatchObject({ id, trigger: 'overflow' });
    expect(summaries[0]).toMatchObject({
      id,
      source: ['dsh:4'],
      sourceTokens: 266,
      summary: [{ type: 'text', text: 'The request established a durable compaction premise.' }],
      route: { provider: 'deepseek-official', model: 'deepseek-v4-flash', maxOutput: 32 },
      usage: { input: 20, output: 4 },
    });
    const cp = checkpoints[0];
    expect(cp?.op).toEqual({ op: 'replace', from: 'dsh:4', to: 'dsh:4' });
    expect(cp?.item.derivation).toEqual({ kind: 'checkpoint', compactionId: id, covers: ['dsh:4'], part: 'summary' });
    expect(cp?.item).toMatchObject({ role: 'user', origin: 'plugin:compact' });
    // sourceEventSeqs [19, 20, 4]: the start, the summary, the shadowed message.
    expect(cp?.sources).toEqual([starts[0]?.seq, summaries[0]?.seq, firstUser?.seq]);
    expect(ends[0]).toMatchObject({ id, outcome: 'committed' });
    // Bracket order: start < summary < checkpoint < end.
    const order = [starts[0]?.seq, summaries[0]?.seq, cp?.seq, ends[0]?.seq] as number[];
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('counts four requests: step 1, the overflowing step 2, the summarizer, the recovered step 2', () => {
    const requests = r.of('request');
    expect(requests.map((q) => [q.id, q.purpose])).toEqual([
      ['req:1', 'agent'],
      ['req:2', 'agent'],
      ['req:3', 'compaction'],
      ['req:4', 'agent'],
    ]);
    const responses = new Map(r.of('response').map((p) => [p.request, p]));
    expect(responses.size).toBe(4);
    expect(responses.get('req:1')).toMatchObject({ finish: { raw: 'tool-calls', reason: 'tool_calls' }, usage: { input: 24, output: 6 } });
    expect(responses.get('req:2')).toMatchObject({
      finish: { raw: 'error', reason: 'error' },
      error: { code: 'CONTEXT_WINDOW_EXCEEDED', message: 'snapshot request exceeded the model context window' },
    });
    expect(responses.get('req:2')?.usage).toBeUndefined();
    expect(requests[2]).toMatchObject({
      compactionId: '338e88fa-e78b-4d49-bd38-8f919e85f5e1',
      input: { items: ['dsh:4'], instruction: null },
      route: { provider: 'deepseek-official', model: 'deepseek-v4-flash', maxOutput: 32 },
    });
    expect(responses.get('req:3')).toMatchObject({ usage: { input: 20, output: 4 } });
    expect(responses.get('req:4')).toMatchObject({ finish: { raw: 'stop', reason: 'stop' }, usage: { input: 20, output: 4 } });
    // The summary names its call.
    expect(r.of('compaction/summary')[0]?.request).toBe('req:3');
  });

  it('maps the stream-json twin (explicit seqs) to the same events', () => {
    const s = importFixture(SAMPLES.compactionStream);
    expect(errors(s.diagnostics)).toEqual([]);
    expect(s.diagnostics.filter((d) => d.rule === 'DSH_SEQ_GAP')).toEqual([]);
    const { starts, summaries, ends, checkpoints } = compactionShape(s);
    expect([starts.length, summaries.length, ends.length, checkpoints.length]).toEqual([1, 1, 1, 1]);
    expect(ends[0]?.outcome).toBe('committed');
    // Explicit seqs: the checkpoint cites DSH seqs 19, 20, 4; find the lines that carry them.
    const lineOf = (dshSeq: number): number => s.lines.findIndex((v) => (v.event as { seq?: number } | undefined)?.seq === dshSeq);
    const standsFor = (dshSeq: number) => s.events.find((e) => e.line === lineOf(dshSeq) && e.kind !== 'request' && e.kind !== 'response');
    expect(checkpoints[0]?.sources).toEqual([standsFor(19)?.seq, standsFor(20)?.seq, standsFor(4)?.seq]);
    expect(standsFor(19)?.kind).toBe('compaction/start');
    expect(standsFor(20)?.kind).toBe('compaction/summary');
    // Same canonical kinds as the snapshot, but for its header line and the trailing result.
    const kinds = (x: Imported) =>
      x.events.filter((e) => e.kind !== 'session' && !(e.kind === 'record' && e.type.startsWith('stream-json/'))).map((e) => e.kind);
    expect(kinds(s)).toEqual(kinds(r));
  });
});

describe('compaction edge cases', () => {
  const head = { type: 'session', version: 0, id: 's', createdAt: 1, delegationDepth: 0 };
  const user = (text: string) => ({
    type: 'user/message',
    data: { role: 'user', id: 'u', content: [{ type: 'text', text }], source: { kind: 'user' } },
    surfaceOp: 'append',
  });

  it('a manual compaction (turn null) that fails ends failed, with the error kept', () => {
    const r = importValues([
      head,
      user('hello'),
      { type: 'compaction/start', data: { compactionId: 'c1', turn: null } },
      { type: 'compaction/end', data: { compactionId: 'c1', turn: null, error: 'summary not smaller than source' } },
    ]);
    expect(errors(r.diagnostics)).toEqual([]);
    expect(r.of('compaction/start')[0]?.trigger).toBe('manual');
    expect(r.of('compaction/end')[0]).toMatchObject({ outcome: 'failed', error: { message: 'summary not smaller than source' } });
  });

  it('an automatic compaction without a checkpoint ends rejected; a bracket left open is reported', () => {
    const r = importValues([
      head,
      user('hello'),
      { type: 'compaction/start', data: { compactionId: 'c1', turn: 1 } },
      { type: 'compaction/end', data: { compactionId: 'c1', turn: 1 } },
      { type: 'compaction/start', data: { compactionId: 'c2', turn: 1 } },
    ]);
    expect(r.of('compaction/start').map((e) => e.trigger)).toEqual(['auto', 'auto']);
    expect(r.of('compaction/end')[0]?.outcome).toBe('rejected');
    expect(r.diagnostics.map((d) => d.rule)).toContain('DSH_COMPACTION_OPEN');
  });

  it('a summary error becomes a failed summarizer call and a summary-error', () => {
    const r = importValues([
      head,
      user('hello'),
      { type: 'compaction/start', data: { compactionId: 'c1', turn: 1 } },
      {
        type: 'compaction/summary-error',
        data: { compactionId: 'c1', provider: 'p', model: 'm', error: { code: 'RATE_LIMIT', message: 'slow down' } },
      },
      { type: 'compaction/end', data: { compactionId: 'c1', turn: 1, error: 'RATE_LIMIT: slow down' } },
    ]);
    expect(errors(r.diagnostics)).toEqual([]);
    expect(r.of('request')).toMatchObject([{ purpose: 'compaction', compactionId: 'c1', route: { provider: 'p', model: 'm' } }]);
    expect(r.of('response')[0]?.error).toEqual({ code: 'RATE_LIMIT', message: 'slow down' });
    expect(r.of('compaction/summary-error')[0]).toMatchObject({ id: 'c1', error: { code: 'RATE_LIMIT', message: 'slow down' } });
    expect(r.of('compaction/end')[0]?.outcome).toBe('failed');
  });
});
