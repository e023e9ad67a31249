import { describe, expect, it } from 'vitest';
import { OpenCodeImport } from '../../../../src/main/importers/opencode/import';
import { replay } from '../../../../src/shared/replay/fold';
import { modelView } from '../../../../src/shared/replay/view';
import type { LogEvent } from '../../../../src/shared/model/event';
import { FakeSink } from '../fake-sink';

/* Compactions of OpenCode records fed line by line: tails, summaries without a question, failures. */

type Rec = Record<string, unknown>;
const user = (id: string, parts: Rec[]): Rec[] => [
  { opencode: 'message', id, from: `message ${id}`, info: { id, role: 'user', time: { created: 1 } } },
  ...parts.map((p, i) => ({ opencode: 'part', id: `${id}_p${i}`, messageID: id, from: `part ${id}_p${i}`, part: p })),
];
const asst = (id: string, parts: Rec[], info: Rec = {}): Rec[] => [
  { opencode: 'message', id, from: `message ${id}`, info: { id, role: 'assistant', finish: 'stop', time: { created: 1 }, ...info } },
  ...parts.map((p, i) => ({ opencode: 'part', id: `${id}_p${i}`, messageID: id, from: `part ${id}_p${i}`, part: p })),
];
const text = (t: string): Rec => ({ type: 'text', text: t });

function load(records: Rec[]) {
  const sink = new FakeSink();
  const imp = new OpenCodeImport(sink);
  records.forEach((value, i) => imp.line({ value, line: i + 1, offset: 0, length: 0 }));
  imp.end();
  const state = replay(sink.events as unknown as LogEvent[]);
  const ids = (n: number): string[] => (modelView(state, n)?.items ?? []).map((x) => x.id);
  return { sink, state, ids };
}

describe('OpenCode compactions', () => {
  it('keeps the tail from the first message when tail_start_id names it: the question and summary go first', () => {
    const { ids, state } = load([
      ...user('u1', [text('a')]),
      ...asst('a1', [text('b')]),
      ...user('c1', [{ type: 'compaction', auto: true, tail_start_id: 'u1' }]),
      ...asst('s1', [text('summary')], { summary: true, parentID: 'c1' }),
      ...user('u2', [text('go on')]),
      ...asst('a2', [text('ok')]),
    ]);
    expect(ids(2)).toEqual(['c1:question', 'c1:summary', 'u1', 'a1#1', 'u2']);
    expect(state.compactions.map((c) => c.outcome)).toEqual(['committed']);
  });

  it('reads a summary message without a compaction part (0.5.x) as a summary of everything before it', () => {
    const { ids } = load([
      ...user('u1', [text('a')]),
      ...asst('a1', [text('b')]),
      ...asst('s1', [text('summary')], { summary: true, parentID: 'u1' }),
      ...user('u2', [text('next')]),
      ...asst('a2', [text('ok')]),
    ]);
    expect(ids(2)).toEqual(['s1:summary', 'u2']);
  });

  it('fails a compaction that no summary message answers, and keeps the view', () => {
    const { ids, state, sink } = load([
      ...user('u1', [text('a')]),
      ...asst('a1', [text('b')]),
      ...user('c1', [{ type: 'compaction', auto: false }]),
      ...user('u2', [text('again')]),
      ...asst('a2', [text('ok')]),
    ]);
    expect(ids(1)).toEqual(['u1', 'a1#1', 'c1', 'u2']);
    expect(state.compactions.map((c) => c.outcome)).toEqual(['failed']);
    expect(sink.events.find((e) => e.kind === 'compaction/end')).toMatchObject({
      error: { message: 'no summary message answers this compaction request' },
    });
  });

  it('leaves an answer that ended in an error out of later views, but keeps an aborted one that said something', () => {
    const { ids } = load([
      ...user('u1', [text('a')]),
      ...asst('a1', [{ type: 'step-start' }, text('half')], { finish: undefined, error: { name: 'APIError', data: { message: 'boom' } } }),
      ...user('u2', [text('b')]),
      ...asst('a2', [{ type: 'step-start' }, text('partial')], {
        finish: undefined,
        error: { name: 'MessageAbortedError', data: { message: 'aborted' } },
      }),
      ...user('u3', [text('c')]),
      ...asst('a3', [text('ok')]),
    ]);
    expect(ids(2)).toEqual(['u1', 'u2', 'a2#1', 'u3']);
  });
});
