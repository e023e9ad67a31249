import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SessionInspector } from '../../src/main/session/inspector';
import { loadSession } from '../../src/main/session/load';

const DIR = 'fixtures/codex';
const REMOTE = `${DIR}/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl`;
const SHORT = `${DIR}/rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl`;
const TOOLS = `${DIR}/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl`;

async function open(path: string) {
  return new SessionInspector(await loadSession(path));
}

/** The rollout's lines, parsed (1-based: index 0 unused). */
function lines(path: string): Record<string, unknown>[] {
  return [
    {},
    ...readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>),
  ];
}

describe('golden: Codex 0.104 rollout with one remote compaction', () => {
  it('is detected as Codex and loads with no error diagnostics', async () => {
    const ins = await open(REMOTE);
    expect(ins.session.format).toBe('codex');
    expect(ins.diagnostics().filter((d) => d.severity === 'error')).toEqual([]);
    expect(ins.diagnostics().map((d) => d.rule)).toEqual(['CODEX_TOKEN_ESTIMATE']);
  });

  it('has exactly one compaction: remote, committed, its checkpoint the opaque encrypted item', async () => {
    const ins = await open(REMOTE);
    const state = ins.replay();
    expect(state.compactions).toHaveLength(1);
    const c = state.compactions[0];
    expect(c).toMatchObject({
      id: 'cmp:L1788',
      outcome: 'committed',
      strategy: 'remote',
      trigger: 'auto',
      preTokens: 212_134,
      checkpointItems: ['L1788.r39'],
    });
    const ck = state.itemById.get('L1788.r39');
    // The sample's redaction replaced the 13,412-character ciphertext with a marker: its size is the marker's.
    expect(ck?.item.blocks).toEqual([
      { type: 'opaque', label: 'codex:compaction (encrypted)', chars: '[REDACTED_ENCRYPTED_CONTENT len=13412 sha=de3d60a6]'.length },
    ]);
    expect(ck?.item.derivation).toMatchObject({ kind: 'checkpoint', compactionId: 'cmp:L1788' });
  });

  it('the view right after it starts with the retained items and contains the opaque compaction item', async () => {
    const ins = await open(REMOTE);
    const state = ins.replay();
    const c = state.compactions[0];
    const after = state.requests.find((r) => r.purpose === 'agent' && r.seq > (c?.endSeq ?? Infinity));
    expect(after).toBeDefined();
    const v = ins.view(after!.index);
    expect(v?.items).toHaveLength(40);
    // The first retained item: the session's first user message, re-injected.
    expect(v?.items[0]).toMatchObject({ id: 'L1788.r0', kind: 'user', derivation: { kind: 'reinjected', of: ['L9'] } });
    expect(v?.items.slice(0, 33).every((i) => i.derivation?.kind === 'reinjected')).toBe(true);
    const last = v?.items.at(-1);
    expect(last).toMatchObject({ id: 'L1788.r39', kind: 'checkpoint' });
    expect(last?.blocks?.[0]?.type).toBe('opaque');
    // Nothing of the old history is left verbatim.
    expect(v?.items.every((i) => i.id.startsWith('L1788.'))).toBe(true);
    const fate = ins.fates(after!.index).find((f) => f.id === 'L14')?.fate;
    expect(fate).toEqual({ fate: 'summarised', compactionId: 'cmp:L1788', by: 'L1788.r39' });
  });

  it('reportedInputTokens of every agent request equals the input_tokens of its token_count', async () => {
    const ins = await open(REMOTE);
    const state = ins.replay();
    const file = lines(REMOTE);
    const agent = state.requests.filter((r) => r.purpose === 'agent');
    expect(agent).toHaveLength(286);
    for (const r of agent) {
      const v = ins.view(r.index);
      const response = ins.session.events.at(r.responseSeq ?? -1);
      expect(response?.kind).toBe('response');
      const tc = file[ins.session.loc(response?.seq ?? -1)?.line ?? 0] as {
        payload: { type: string; info: { last_token_usage: { input_tokens: number } } };
      };
      expect(tc.payload.type).toBe('token_count');
      expect(v?.request.reportedInputTokens).toBe(tc.payload.info.last_token_usage.input_tokens);
    }
  });

  it('the reported context grows and drops after the compaction', async () => {
    const ins = await open(REMOTE);
    const state = ins.replay();
    const c = state.compactions[0];
    const before = state.requests.filter((r) => r.purpose === 'agent' && r.seq < (c?.startSeq ?? 0)).at(-1);
    const after = state.requests.find((r) => r.purpose === 'agent' && r.seq > (c?.endSeq ?? 0));
    expect(ins.view(0)?.request.reportedInputTokens).toBe(17_088);
    expect(ins.view(before!.index)?.request.reportedInputTokens).toBe(209_950);
    expect(ins.view(after!.index)?.request.reportedInputTokens).toBe(48_297);
  });

  it('marks the three resumes, with the system prompt and route in every view', async () => {
    const ins = await open(REMOTE);
    const resumes = [...ins.session.events].filter((e) => e.kind === 'lifecycle' && e.boundary === 'resume');
    expect(resumes.map((e) => ins.session.loc(e.seq)?.line)).toEqual([128, 216, 447]);
    const v = await ins.fullView(0);
    expect(v?.system).toEqual([{ type: 'text', text: '[REDACTED_TEXT len=13131 sha=036b7e47]' }]);
    expect(v?.request.route).toMatchObject({ provider: 'openai', model: 'gpt-5.3-codex', window: 258_400, reasoning: 'high' });
    expect(v?.tools).toBeNull();
  });
});

describe('golden: the other two rollouts', () => {
  it('a turn cut after its first call: one request, its call unanswered', async () => {
    const ins = await open(SHORT);
    expect(ins.diagnostics().filter((d) => d.severity !== 'info')).toEqual([]);
    const state = ins.replay();
    expect(state.requests).toHaveLength(1);
    expect(ins.view(0)?.request.reportedInputTokens).toBe(34_469);
    expect(ins.view(0)?.items.map((i) => i.kind)).toEqual(['system', 'system', 'user', 'user', 'system', 'system', 'user', 'user']);
  });

  it('one turn of six calls with growing context', async () => {
    const ins = await open(TOOLS);
    expect(ins.diagnostics()).toEqual([]);
    const state = ins.replay();
    expect(state.requests.map((r) => r.usage?.context)).toEqual([42_772, 44_218, 48_969, 49_326, 49_647, 63_441]);
    expect(ins.view(5)?.items.filter((i) => i.kind === 'tool_result')).toHaveLength(5);
  });
});
