import { describe, expect, it } from 'vitest';
import { loadSession } from '../../../../src/main/session/load';

const SUB = 'fixtures/gemini-cli/written/subagent/chats';
const RESUME = 'fixtures/fidelity/logs/gemini-cli-0.61.0/tools-resume/tmp/work/chats';
const RESUME_041 = 'fixtures/fidelity/logs/gemini-cli-0.41.2/tools-resume/tmp/work/chats';

async function events(path: string) {
  const s = await loadSession(path);
  try {
    return {
      events: [...(await s.hydrateMany(Array.from({ length: s.events.length }, (_, i) => i)))],
      files: s.files,
      diagnostics: s.diagnostics,
    };
  } finally {
    await s.dispose();
  }
}

describe('Gemini CLI sessions over several files', () => {
  it('joins a chat with its subagent files as branches linked to it', async () => {
    const r = await events(`${SUB}/session-2026-07-15T10-00-7e1a2b3c.jsonl`);
    expect(r.files.map((f) => f.path)).toEqual([
      `${SUB}/session-2026-07-15T10-00-7e1a2b3c.jsonl`,
      `${SUB}/7e1a2b3c-4d5e-4f60-8a71-92b3c4d5e6f7/c0ffee01-2345-4678-9abc-def012345678.jsonl`,
    ]);
    expect(r.diagnostics).toEqual([]);
    const branch = 'subagent-c0ffee01-2345-4678-9abc-def012345678';
    const fork = r.events.find((e) => e.kind === 'fork');
    expect(fork).toMatchObject({ branch, inherit: false, parent: { seq: expect.any(Number) } });
    expect(r.events.filter((e) => e.kind === 'session')).toHaveLength(1);
    const onBranch = r.events.filter((e) => e.branch === branch);
    expect(onBranch.filter((e) => e.kind === 'request').map((e) => (e.kind === 'request' ? e.id : ''))).toEqual([
      `${branch}:req-1`,
      `${branch}:req-2`,
    ]);
    expect(r.events.filter((e) => e.kind === 'request' && e.branch === undefined)).toHaveLength(2);
    // The chat stays the branch shown first: its record comes after every subagent's event.
    expect(r.events.at(-1)).toMatchObject({ kind: 'record', type: 'leaf' });
    expect(r.events.at(-1)?.branch).toBeUndefined();
  });

  it('opens a subagent file alone, naming its parent', async () => {
    const r = await events(`${SUB}/7e1a2b3c-4d5e-4f60-8a71-92b3c4d5e6f7/c0ffee01-2345-4678-9abc-def012345678.jsonl`);
    expect(r.files).toHaveLength(1);
    expect(r.events.find((e) => e.kind === 'session')).toMatchObject({
      parent: { session: '7e1a2b3c-4d5e-4f60-8a71-92b3c4d5e6f7', origin: 'subagent' },
    });
  });

  it('names a 0.61 --resume stub (the real run) and leaves the session file unchanged', async () => {
    const stub = await events(`${RESUME}/session-2026-12-02T21-01-a630fd7b.jsonl`);
    expect(stub.diagnostics.map((d) => [d.rule, d.severity])).toEqual([['GEMINI_RESUME_STUB', 'info']]);
    expect(stub.diagnostics[0]?.message).toContain('a630fd7b-b220-403f-95fd-5a69ef766fb4');
    const main = await events(`${RESUME}/session-2026-12-02T21-00-a630fd7b.jsonl`);
    expect(main.files).toHaveLength(1);
    expect(main.diagnostics.filter((d) => d.rule === 'GEMINI_RESUME_STUB')).toEqual([]);
  });

  it('names a 0.41 --resume stub, the metadata line alone (the real run)', async () => {
    const stub = await events(`${RESUME_041}/session-2026-12-02T21-00-6d594ecf.jsonl`);
    expect(stub.diagnostics.map((d) => [d.rule, d.severity])).toEqual([['GEMINI_RESUME_STUB', 'info']]);
    expect(stub.diagnostics[0]?.message).toContain('6d594ecf-410b-4e0b-974c-51aaa382d7e5');
    const main = await events(`${RESUME_041}/session-2026-12-02T20-59-6d594ecf.jsonl`);
    expect(main.diagnostics.filter((d) => d.rule === 'GEMINI_RESUME_STUB')).toEqual([]);
  });
});
