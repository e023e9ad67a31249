import { describe, expect, it } from 'vitest';
import { expandPackedRow } from '../../../../src/main/importers/dsh/packed';
import { SAMPLES, errors, importFixture, importValues } from './helpers';

describe('packed chunk rows', () => {
  it('expand to one assistant/chunk per member with seq0 + k and time0 + the first k gaps', () => {
    const x = expandPackedRow({
      type: 'text-chunks',
      seq0: 10,
      time0: 1000,
      data: { turn: 1, step: 2, index: 0, dt: [1, 2], texts: ['a', 'b', 'c'] },
    });
    expect(x.problem).toBeUndefined();
    expect(x.events.map((e) => [e.type, e.seq, e.time])).toEqual([
      ['assistant/chunk', 10, 1000],
      ['assistant/chunk', 11, 1001],
      ['assistant/chunk', 12, 1003],
    ]);
    expect(x.events[1]?.data).toEqual({ turn: 1, step: 2, chunk: { type: 'text-delta', index: 0, text: 'b' } });
  });

  it('rebuild tool-call deltas with the run-constant id and name', () => {
    const x = expandPackedRow({
      type: 'tool-call-chunks',
      data: { turn: 1, step: 1, index: 1, dt: [0, 0], id: 'c1', name: 'bash', args: ['{', '"a"', '}'] },
    });
    expect(x.events.map((e) => e.data)).toEqual([
      { turn: 1, step: 1, chunk: { type: 'tool-call-delta', index: 1, id: 'c1', name: 'bash', argumentsDelta: '{' } },
      { turn: 1, step: 1, chunk: { type: 'tool-call-delta', index: 1, id: 'c1', name: 'bash', argumentsDelta: '"a"' } },
      { turn: 1, step: 1, chunk: { type: 'tool-call-delta', index: 1, id: 'c1', name: 'bash', argumentsDelta: '}' } },
    ]);
    // Normalised snapshots have no seq0/time0.
    expect(x.events.every((e) => e.seq === undefined && e.time === undefined)).toBe(true);
  });

  it('report a wrong dt arity but still expand the members', () => {
    const x = expandPackedRow({
      type: 'reasoning-chunks',
      seq0: 0,
      time0: 5,
      data: { turn: 1, step: 1, index: 0, dt: [1], texts: ['a', 'b', 'c'] },
    });
    expect(x.events).toHaveLength(3);
    expect(x.problem).toMatch(/dt/);
  });

  it('map the packed-chunks sample so tool/result sources point at the tool/call (DSH seq 58)', () => {
    const r = importFixture(SAMPLES.packed);
    expect(errors(r.diagnostics)).toEqual([]);
    // Line 12 packs 17 reasoning deltas, line 14 packs 25 tool-call deltas: one record per member.
    expect(r.events.filter((e) => e.line === 12 && e.kind === 'record')).toHaveLength(17);
    expect(r.events.filter((e) => e.line === 14 && e.kind === 'record')).toHaveLength(25);
    const toolCall = r.events.find((e) => e.kind === 'record' && e.type === 'tool/call');
    expect(toolCall?.line).toBe(20);
    const result = r.of('item').find((e) => e.item.role === 'tool');
    expect(result?.item.id).toBe('dsh:61');
    expect(result?.sources).toEqual([toolCall?.seq]);
    // The step-1 assistant message cites DSH seqs 9..56: the block-start on line 11 through the
    // finish on line 18, every one an assistant/chunk record, packed members included.
    const message = r.of('item').find((e) => e.item.id === 'dsh:57');
    const cited = (message?.sources ?? []).map((s) => r.events[s]);
    expect(cited).toHaveLength(48);
    expect(cited.every((e) => e?.kind === 'record' && e.type === 'assistant/chunk')).toBe(true);
    expect(cited[0]?.line).toBe(11);
    expect(cited.at(-1)?.line).toBe(18);
  });

  it('use explicit seq0 when the row has one, and flag a gap', () => {
    const r = importValues([
      { type: 'session', version: 0, id: 's', createdAt: 1 },
      { type: 'turn/start', seq: 0, time: 1, data: { turn: 1 } },
      { type: 'text-chunks', seq0: 1, time0: 2, data: { turn: 1, step: 1, index: 0, dt: [0, 0], texts: ['a', 'b', 'c'] } },
      { type: 'turn/end', seq: 9, time: 3, data: { turn: 1, reason: { kind: 'completed' } } },
    ]);
    const gap = r.diagnostics.filter((d) => d.rule === 'DSH_SEQ_GAP');
    expect(gap).toHaveLength(1);
    expect(gap[0]?.message).toMatch(/seq 9, expected 4/);
    expect(
      r
        .of('record')
        .filter((e) => e.type === 'assistant/chunk')
        .map((e) => e.at),
    ).toEqual([2, 2, 2]);
  });
});
