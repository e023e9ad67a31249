import { describe, expect, it } from 'vitest';
import { SessionInspector } from '../../src/main/session/inspector';
import { loadSession } from '../../src/main/session/load';

const SNAP = 'fixtures/dsh/examples';
const RECOVERY = `${SNAP}/headless-agent/tests/snapshots/compaction-recovery/session.jsonl`;

async function open(path: string) {
  return new SessionInspector(await loadSession(path));
}

describe('golden: DeepSeek Harness compaction-recovery', () => {
  it('has one committed compaction and the four model calls the log shows', async () => {
    const ins = await open(RECOVERY);
    expect(ins.session.format).toBe('dsh');
    const state = ins.replay();
    expect(state.compactions).toHaveLength(1);
    expect(state.compactions[0]).toMatchObject({ id: '338e88fa-e78b-4d49-bd38-8f919e85f5e1', outcome: 'committed' });
    expect(state.requests.map((r) => r.purpose)).toEqual(['agent', 'agent', 'compaction', 'agent']);
    expect(state.requests[1]?.error?.code).toBe('CONTEXT_WINDOW_EXCEEDED');
    expect(ins.diagnostics().filter((d) => d.severity === 'error')).toEqual([]);
  });

  it('after the compaction the view is the system head, one checkpoint citing every shadowed seq, and the retained tail', async () => {
    const ins = await open(RECOVERY);
    const state = ins.replay();
    const before = ins.view(1);
    const after = ins.view(3);
    expect(before?.items.map((i) => i.kind)).toEqual(['user', 'tool_call', 'tool_result']);
    expect(after?.system?.[0]).toMatchObject({ type: 'text' });
    expect(after?.system && after.system[0]?.type === 'text' ? after.system[0].text : '').toMatch(
      /^You are an AI agent powered by DeepSeek Harness/,
    );
    expect(after?.items.map((i) => i.kind)).toEqual(['checkpoint', 'tool_call', 'tool_result']);
    // The tail is retained verbatim: the same items as before the compaction.
    expect(after?.items.slice(1).map((i) => i.id)).toEqual(before?.items.slice(1).map((i) => i.id));
    const checkpoint = after?.items[0];
    const shadowed = before?.items[0];
    expect(checkpoint?.derivation).toMatchObject({
      kind: 'checkpoint',
      compactionId: '338e88fa-e78b-4d49-bd38-8f919e85f5e1',
      covers: [shadowed?.id],
    });
    // Provenance: the compaction start, its summary, and every shadowed event (DSH's sourceEventSeqs).
    const c = state.compactions[0];
    expect(checkpoint?.provenance).toEqual(expect.arrayContaining([c?.startSeq, c?.summarySeqs[0], shadowed?.seq]));
    for (const s of checkpoint?.provenance ?? []) expect(ins.session.events.at(s)?.seq).toBe(s);
    const fate = ins.fates(3).find((f) => f.id === shadowed?.id)?.fate;
    expect(fate).toEqual({ fate: 'summarised', compactionId: '338e88fa-e78b-4d49-bd38-8f919e85f5e1', by: checkpoint?.id });
  });

  it('the summarizer call shows the shadowed range as its input and says its instruction is not logged', async () => {
    const ins = await open(RECOVERY);
    const v = ins.view(2);
    expect(v?.request.purpose).toBe('compaction');
    expect(v?.items.map((i) => i.kind)).toEqual(['user']);
    expect(v?.unknowns).toContain('summarizer instruction: the log does not record it');
  });
});

describe('golden: DeepSeek Harness session.jsonl.zstd', () => {
  it('reads the compressed log to the same events, and re-reads full text from it', async () => {
    const plain = await loadSession(RECOVERY);
    const zipped = await loadSession('fixtures/dsh-zstd/session.jsonl.zstd');
    try {
      expect(zipped.diagnostics).toEqual([]);
      expect([...zipped.events]).toEqual([...plain.events]);
      // The same lines, at the same offsets, in the decompressed stream as in the plain file.
      expect([...zipped.events].map((e) => zipped.loc(e.seq))).toEqual([...plain.events].map((e) => plain.loc(e.seq)));
      const a = await new SessionInspector(plain).fullView(3);
      const b = await new SessionInspector(zipped).fullView(3);
      expect(b).toEqual(a);
      expect(b?.system?.[0]?.type === 'text' && b.system[0].elided).toBeFalsy();
    } finally {
      await plain.dispose();
      await zipped.dispose();
    }
  });
});
