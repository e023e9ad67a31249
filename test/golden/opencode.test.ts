import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { databaseSource } from '../../src/main/dialects/opencode/in-place';
import { SessionInspector } from '../../src/main/session/inspector';
import { loadSession } from '../../src/main/session/load';

/*
 * Sessions written by the real OpenCode clients (the fidelity suite's runs against the mock
 * provider, copied from fixtures/fidelity/logs): 1.18.33's database with its WAL, and 1.0.162's
 * storage tree. docs/fidelity.md compares every request of these runs with the wire.
 */

const DIR = 'fixtures/opencode';
const opened: SessionInspector[] = [];
afterEach(async () => {
  for (const i of opened.splice(0)) await i.session.dispose();
});

async function open(path: string): Promise<SessionInspector> {
  const i = new SessionInspector(await loadSession(path));
  opened.push(i);
  return i;
}

describe('golden: OpenCode 1.18.33, an automatic compaction', () => {
  const DB = `${DIR}/1.18.33/auto-compact/opencode.db`;

  it('is read through a copy, since its rows are in the WAL OpenCode left beside it', async () => {
    const src = await databaseSource(DB);
    expect(src.inPlace).toBe(false);
    await src.dispose();
  });

  it('loads its only session with no finding', async () => {
    const ins = await open(DB);
    expect(ins.session.format).toBe('opencode');
    expect(ins.diagnostics()).toEqual([]);
    expect(ins.replay().requests.map((r) => [r.purpose, r.usage?.input])).toEqual([
      ['agent', 2000],
      ['agent', 30000],
      ['compaction', 900],
      ['agent', 1500],
      ['agent', 1500],
    ]);
  });

  it('commits the compaction, and its summarizer call records nothing of what was sent', async () => {
    const ins = await open(DB);
    const st = ins.replay();
    expect(st.compactions.map((c) => [c.trigger, c.outcome])).toEqual([['auto', 'committed']]);
    const summarizer = st.requests[2];
    expect(summarizer?.input).toEqual({ items: [], instruction: null });
    // After it: the compaction's question, the summary, OpenCode's synthetic "Continue…" message.
    const after = ins.view(3)?.items ?? [];
    expect(after.map((x) => x.role)).toEqual(['user', 'assistant', 'user']);
    expect(after[1]?.blocks).toEqual([
      { type: 'text', text: 'Summary: the user asked for a greeting; the shell printed hello-from-fidelity.' },
    ]);
  });
});

describe('golden: OpenCode 1.18.33, a failed compaction', () => {
  it('keeps the view when the summarizer call fails, each time it is tried', async () => {
    const ins = await open(`${DIR}/1.18.33/compact-http-400/opencode.db`);
    const st = ins.replay();
    expect(st.compactions.map((c) => c.outcome)).toEqual(['failed', 'failed']);
    expect(st.requests.filter((r) => r.purpose === 'compaction').map((r) => r.error?.message)).toEqual([
      'The summarizer request was rejected.',
      'The summarizer request was rejected.',
    ]);
  });
});

describe('golden: OpenCode 1.0.162, a storage tree', () => {
  it('reads three turns with a tool call and two parallel ones', async () => {
    const ins = await open(`${DIR}/1.0.162/tools-resume/storage`);
    const st = ins.replay();
    expect(st.requests).toHaveLength(5);
    const calls = (ins.view(3)?.items ?? []).flatMap((x) => (x.blocks ?? []).filter((b) => b.type === 'tool_call').map((b) => b.name));
    expect(calls).toEqual(['bash', 'bash', 'bash']);
  });
});

describe('golden: OpenCode 1.18.33, pruning driven over its server API', () => {
  const RUN = 'fixtures/fidelity/logs/opencode-1.18.33/prune';

  it('sends each pruned output as the cleared marker, still the result of its call, as on the wire', async () => {
    const ins = await open(`${RUN}/opencode.db`);
    expect(ins.replay().requests).toHaveLength(6);
    // The last request the mock received (turn 4, after the third turn's loop pruned).
    const lines = readFileSync(`${RUN}/captured.jsonl`, 'utf8').trim().split('\n');
    const body = JSON.parse((JSON.parse(lines.at(-1) as string) as { body: string }).body) as {
      messages: { role: string; tool_call_id?: string; content: unknown }[];
    };
    const wire = body.messages.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, m.content]);
    expect(wire.filter(([, c]) => c === '[Old tool result content cleared]')).toHaveLength(7);
    // The whole view: views elide long texts.
    const results = ((await ins.fullView(5))?.items ?? []).flatMap((x) => (x.blocks ?? []).filter((b) => b.type === 'tool_result'));
    expect(results.map((b) => [b.callId, b.content.map((c) => (c.type === 'text' ? c.text : '')).join('')])).toEqual(wire);
    // Before the prune every output went whole.
    expect(JSON.stringify(ins.view(4))).not.toContain('[Old tool result content cleared]');
  });
});
