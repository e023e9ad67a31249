import { describe, expect, it } from 'vitest';
import { geminiCliImporter } from '../../../../src/main/importers/gemini-cli';
import { detectFormat } from '../../../../src/main/importers/registry';
import { CanonicalEvent, type EventBody } from '../../../../src/shared/model/event';
import { fatesAt } from '../../../../src/shared/replay/view';
import { REAL, RUNS, WRITTEN, ids, importFixture, importValues, readRecords } from './helpers';

const body = (e: EventBody & { seq: number; line: number; file: number }): EventBody => {
  const { seq: _s, line: _l, file: _f, ...rest } = e;
  return rest as EventBody;
};

describe.each([...REAL, WRITTEN, ...Object.values(RUNS)])('fixture %s', (rel) => {
  const r = importFixture(rel);

  it('emits only valid canonical events, the session first, unique item ids per version', () => {
    for (const e of r.events) {
      const parsed = CanonicalEvent.safeParse(body(e));
      expect(parsed.success, `seq ${e.seq}: ${JSON.stringify(parsed.error?.issues[0])}`).toBe(true);
    }
    expect(r.events[0]?.kind).toBe('session');
    expect(r.of('session')).toHaveLength(1);
    const itemIds = r.of('item').map((e) => e.item.id);
    expect(new Set(itemIds).size).toBe(itemIds.length);
  });

  it('names what the log does not record: system, tools and the unrecorded turns', () => {
    const v = r.view(0);
    expect(v.system).toBeNull();
    expect(v.tools).toBeNull();
    expect(v.unknowns.some((u) => u.includes('session_context'))).toBe(true);
  });

  it('is claimed by sniff, and by no other importer', () => {
    const first = (rel.endsWith('.json') ? [readRecords(rel)[1]] : readRecords(rel).slice(1, 17)).filter((x) => x !== undefined);
    expect(geminiCliImporter.sniff(first, rel)).toBeGreaterThanOrEqual(0.9);
    expect(detectFormat(first, rel)?.importer.id).toBe('gemini-cli');
  });

  it('rehydrates every event from its own line to the same event', () => {
    for (const e of r.events) expect(geminiCliImporter.rehydrate(body(e), r.lines[e.line] ?? {}), `seq ${e.seq}`).toEqual(body(e));
  });
});

describe('real legacy sessions (whole .json, 0.22)', () => {
  it('says a compression of this version would have left no trace', () => {
    const r = importFixture('session-2025-12-30T06-53-7bc58f7d.json');
    for (const i of [0, 14]) expect(r.view(i).unknowns.some((u) => u.includes('before 0.44 compressed the history'))).toBe(true);
  });

  it('reads one request per gemini message, with its reported usage; all-zero tokens stay unknown', () => {
    const r = importFixture('session-2025-12-30T06-53-7bc58f7d.json');
    expect(r.of('request')).toHaveLength(15);
    const responses = r.of('response');
    // The message written with every count 0 (a response without usage metadata) has none.
    expect(responses).toHaveLength(14);
    expect(responses[0]?.usage).toEqual({ input: 3647, cacheRead: 3090, context: 6737, output: 425, reasoning: 382 });
    expect(r.diagnostics).toEqual([]);
  });

  it('sends text and calls as one model turn and the results as the next, after the user turn; thoughts are only shown', () => {
    const r = importFixture('session-2025-12-30T06-53-7bc58f7d.json');
    const v = r.view(1);
    expect(ids(v)).toEqual([
      '472dc558-b4e3-4c5f-a217-cf7567442dae',
      'b78789a2-e47e-4e7c-8bfa-5b1901b8ac61',
      'b78789a2-e47e-4e7c-8bfa-5b1901b8ac61_response',
    ]);
    expect(v.items[1]?.blocks?.map((b) => b.type)).toEqual(['text', 'tool_call']);
    const thoughts = r.of('item').find((e) => e.item.id === 'b78789a2-e47e-4e7c-8bfa-5b1901b8ac61_thoughts');
    expect(thoughts?.op).toEqual({ op: 'log' });
    expect(thoughts?.item.blocks.map((b) => b.type)).toEqual(['reasoning', 'reasoning', 'reasoning']);
    expect(v.items[2]?.blocks?.[0]).toMatchObject({ type: 'tool_result', callId: 'list_directory-1767077655309-865f4589c6ca9' });
  });

  it('keeps info and error messages out of every view', () => {
    const r = importFixture('session-2025-12-30T01-16-3f9ce747.json');
    const logged = r.of('item').filter((e) => e.op.op === 'log' && e.item.origin !== 'thoughts');
    expect(logged.map((e) => e.item.origin)).toEqual(['error', 'info', 'info']);
    const hidden = new Set(logged.map((e) => e.item.id));
    for (let i = 0; i < r.state.requests.length; i++) for (const x of r.view(i).items) expect(hidden.has(x.id)).toBe(false);
  });

  it('takes the summary the CLI generated as the session title', () => {
    expect(importFixture('session-2025-12-30T07-44-a1c91f1a.json').of('session')[0]?.title).toBe(
      'Make Gemini web app open as installed app.',
    );
  });
});

describe('JSONL (v0.40 and later), written from the recorder', () => {
  const r = importFixture(WRITTEN);

  it('drops the untraced-compression unknown once the file writes its list back (v0.44 on)', () => {
    // The opening $set of messages comes before the first request: no request carries it.
    for (let i = 0; i < r.state.requests.length; i++)
      expect(r.view(i).unknowns.some((u) => u.includes('before 0.44 compressed the history'))).toBe(false);
  });

  it('upserts a message written again: one request, the result added, the usage once', () => {
    // Eight calls in the log; the rewind leaves seven on the branch.
    expect(r.of('request')).toHaveLength(8);
    expect(r.state.requests).toHaveLength(7);
    const g1 = r.of('item').filter((e) => e.item.id.startsWith('g1'));
    expect(g1.map((e) => e.item.id)).toEqual(['g1_thoughts', 'g1', 'g1_response']);
    expect(r.of('response').filter((e) => e.request === 'req-2')).toHaveLength(1);
  });

  it('does not take the opening session_context $set for a compaction', () => {
    expect(ids(r.view(0))).toEqual(['env-ctx', 'u1']);
    expect(r.view(0).items[0]?.meta).toBe(true);
  });

  it('turns a rewind into a branch back to before the message', () => {
    const revert = r.of('revert');
    expect(revert).toHaveLength(1);
    expect(ids(r.view(4))).not.toContain('u3');
    expect(ids(r.view(4))).toContain('u4');
  });

  it('reads the compression: summary and acknowledgement before the kept tail, the rest replaced', () => {
    const start = r.of('compaction/start');
    expect(start).toHaveLength(1);
    expect(start[0]?.source).toEqual(['u1', 'g1', 'g1_response', 'g2', 'u2', 'g3', 'g3_response', 'g4']);
    // The prompt count the CLI compared: the latest response's `tokens.input`.
    expect(start[0]?.preTokens).toBe(540_000);
    expect(r.of('compaction/end')[0]?.outcome).toBe('committed');
    const v = r.view(5);
    expect(ids(v)).toEqual(['env-ctx', 's1~2', 'a1~2', 'u4', 'g5', 'u5']);
    expect(v.items[1]?.derivation).toMatchObject({ kind: 'checkpoint', compactionId: 'compression-1', part: 'summary' });
    const fates = fatesAt(r.state, 5);
    expect(fates.find((f) => f.id === 'g3_response')?.fate.fate).toBe('summarised');
  });

  it('reads masked tool output as a mask by the harness, not a compaction', () => {
    const masks = r.of('mask');
    expect(masks).toHaveLength(1);
    expect(masks[0]?.items).toEqual(['g6_response']);
    expect(masks[0]?.by).toBe('harness');
    expect(JSON.stringify(masks[0]?.reference)).toContain('tool_output_masked');
  });

  it('keeps the unknown record as an unknown event (the catalog reports it) and nothing else', () => {
    expect(r.of('unknown').map((e) => [e.type, e.line])).toEqual([['$patch', 27]]);
    expect(r.diagnostics).toEqual([]);
  });
});

describe('what a written-back list is', () => {
  const meta = { sessionId: 's', projectHash: 'h', startTime: '2026-01-01T00:00:00Z', kind: 'main' };
  const u = (id: string, text: string) => ({ id, timestamp: '2026-01-01T00:00:01Z', type: 'user', content: [{ text }] });
  const g = (id: string, text: string) => ({
    id,
    timestamp: '2026-01-01T00:00:02Z',
    type: 'gemini',
    content: text,
    model: 'gemini-2.5-pro',
  });

  it('a rollback of the last turn drops it without a compaction', () => {
    const r = importValues([meta, u('u1', 'a'), g('g1', 'b'), u('u2', 'c'), { $set: { messages: [u('u1', 'a'), g('g1', 'b')] } }]);
    expect(r.of('compaction/start')).toHaveLength(0);
    expect(r.of('drop')[0]?.items).toEqual(['u2']);
  });

  it('a raw-parts rewrite replaces the items it changes, without a compaction', () => {
    const call = {
      id: 'c1',
      name: 'ls',
      args: {},
      status: 'success',
      result: [{ functionResponse: { id: 'c1', name: 'ls', response: { output: 'x' } } }],
    };
    const r = importValues([
      meta,
      u('u1', 'a'),
      { ...g('g1', ''), toolCalls: [call] },
      {
        $set: {
          messages: [
            u('u1', 'a'),
            { ...g('g1', ''), content: [{ functionCall: { id: 'c1', name: 'ls', args: {} }, thoughtSignature: 'sig' }], toolCalls: [call] },
            {
              id: 'r1',
              timestamp: '2026-01-01T00:00:03Z',
              type: 'user',
              content: [{ functionResponse: { id: 'c1', name: 'ls', response: { output: 'x' } } }],
            },
          ],
        },
      },
    ]);
    expect(r.of('compaction/start')).toHaveLength(0);
    expect(r.of('drop')).toHaveLength(0);
    expect(ids(r.view(0))).toEqual(['u1']);
  });

  it('a compression carried forward in a later list is not counted again', () => {
    const s = u('s1', '<state_snapshot>x</state_snapshot>');
    const a = {
      id: 'a1',
      timestamp: '2026-01-01T00:00:03Z',
      type: 'gemini',
      content: [{ text: 'Got it. Thanks for the additional context!' }],
    };
    const r = importValues([
      meta,
      u('u1', 'a'),
      g('g1', 'b'),
      { $set: { messages: [s, a] } },
      u('u2', 'c'),
      { $set: { messages: [s, a] } },
    ]);
    expect(r.of('compaction/start')).toHaveLength(1);
  });

  it('a rewind to an unknown message empties the list, as the CLI does, and says so', () => {
    const r = importValues([meta, u('u1', 'a'), { $rewindTo: 'nope' }]);
    expect(r.diagnostics.map((d) => d.rule)).toEqual(['GEMINI_REWIND_UNKNOWN']);
    expect(r.of('drop')[0]?.items).toEqual(['u1']);
  });

  it('a file without a metadata line takes its session id from its name; a subagent its parent from its folder', () => {
    const r = importValues([u('u1', 'a')], '/h/.gemini/tmp/p/chats/parent-1/8f3a.jsonl');
    expect(r.of('session')[0]).toMatchObject({ id: '8f3a', parent: { session: 'parent-1', origin: 'subagent' } });
  });

  it('a later metadata line (agent mode restarting) is a new process, not a new session', () => {
    const r = importValues([meta, u('u1', 'a'), meta]);
    expect(r.of('session')).toHaveLength(1);
    expect(r.of('lifecycle').map((e) => e.boundary)).toEqual(['process-start']);
  });
});

describe('v0.40 – v0.43: a masked result written back by writing its message again', () => {
  it('is a mask by the harness with the placeholder as its reference', () => {
    const call = (output: string) => ({
      id: 'c1',
      name: 'read_file',
      args: {},
      status: 'success',
      result: [{ functionResponse: { id: 'c1', name: 'read_file', response: { output } } }],
    });
    const g = (output: string) => ({
      id: 'g1',
      timestamp: '2026-05-01T10:00:02Z',
      type: 'gemini',
      content: '',
      toolCalls: [call(output)],
      model: 'gemini-2.5-pro',
    });
    const r = importValues([
      { sessionId: 's', projectHash: 'h', startTime: '2026-05-01T10:00:00Z' },
      { id: 'u1', timestamp: '2026-05-01T10:00:01Z', type: 'user', content: [{ text: 'read' }] },
      g('a long file'),
      g('<tool_output_masked>\nsaved to tool-outputs/read_file_c1.txt\n</tool_output_masked>'),
    ]);
    expect(r.of('mask').map((e) => [e.items, e.by])).toEqual([[['g1_response'], 'harness']]);
    expect(r.of('item').map((e) => e.item.id)).toEqual(['u1', 'g1', 'g1_response']);
  });
});
