import { UNRECORDED_CONTEXT } from '../../../../src/main/dialects/claude-unrecorded';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { claudeCodeImporter } from '../../../../src/main/importers/claude-code';
import { SessionInspector } from '../../../../src/main/session/inspector';
import { loadSession } from '../../../../src/main/session/load';
import {
  BIG,
  FIXTURES,
  assistant,
  boundary,
  fetched,
  importFiles,
  progress,
  readFetched,
  text,
  toolResult,
  toolUse,
  user,
} from './helpers';

const side = (v: Record<string, unknown>, agentId = 'a77'): Record<string, unknown> => ({ ...v, isSidechain: true, agentId });

const main = [
  user('u1', null, 'Explore the code base.'),
  assistant('a1', 'u1', 'msg_1', [text('Spawning an explorer.')]),
  assistant('a2', 'a1', 'msg_1', [toolUse('toolu_task', 'Task', { subagent_type: 'Explore', prompt: 'Look around.' })]),
  {
    parentUuid: 'a2',
    isSidechain: false,
    type: 'progress',
    uuid: 'p1',
    timestamp: '2026-02-12T10:00:00.000Z',
    data: { type: 'agent_progress', agentId: 'a77', prompt: 'Look around.', message: { type: 'user' } },
    parentToolUseID: 'toolu_task',
    toolUseID: 'agent_msg_x',
  },
  toolResult('r1', 'a2', 'toolu_task', 'It is a Phoenix app.', {
    toolUseResult: { status: 'completed', agentId: 'a77', totalTokens: 100 },
  }),
  assistant('a3', 'r1', 'msg_2', [text('It is a Phoenix app.')]),
];
const sub = [
  side(user('s1', null, 'Look around.')),
  side(assistant('s2', 's1', 'msg_s1', [toolUse('toolu_ls')], { input_tokens: 4, cache_read_input_tokens: 13000, output_tokens: 20 })),
  side(toolResult('s3', 's2', 'toolu_ls', 'mix.exs lib/')),
  side(assistant('s4', 's3', 'msg_s2', [text('A Phoenix app.')])),
];

describe('claude-code: subagents/agent-<id>.jsonl', () => {
  it('is a branch spawned at the Task call: linked to it, inheriting nothing, with an envelope of its own', () => {
    const r = importFiles([
      { path: '/p/s1.jsonl', values: main },
      { path: '/p/s1/subagents/agent-a77.jsonl', values: sub },
    ]);
    expect(r.branches()).toEqual(['main', 'agent-a77']);
    const call = r.of('item').find((e) => e.line === 3);
    const fork = r.of('fork')[0];
    expect(fork).toMatchObject({ branch: 'agent-a77', parent: { seq: call?.seq }, inherit: false });
    expect(fork?.label).toMatch(/subagent a77 \(toolu_task, line 3 of the main file\)/);
    // Nothing inherited, so nothing to hide.
    expect(r.of('drop')).toEqual([]);
    expect(r.of('header').filter((e) => e.branch === 'agent-a77')[0]).toMatchObject({
      system: null,
      tools: null,
      route: { provider: 'anthropic' },
    });
    const st = r.replay('agent-a77');
    // Only the subagent's own requests: the parent's are not on its branch.
    expect(st.requests.map((q) => q.id)).toEqual(['msg_s1', 'msg_s2']);
    const first = r.view(0, 'agent-a77');
    expect(first.items.map((i) => i.id)).toEqual(['s1']);
    expect(first.system).toBeNull();
    expect(first.unknowns).toEqual([
      'system prompt: the log does not record it',
      'tool schemas: the log does not record them',
      `messages: ${UNRECORDED_CONTEXT}`,
    ]);
    expect(first.request.reportedInputTokens).toBe(13004);
    expect(r.view(1, 'agent-a77').items.map((i) => i.id)).toEqual(['s1', 'msg_s1', 's3']);
    expect(r.replay('main').requests.map((q) => q.id)).toEqual(['msg_1', 'msg_2']);
    expect(r.diagnostics).toEqual([]);
  });

  it("keeps main the default: the main file's last response is written after the subagent file, located in the main file", () => {
    const r = importFiles([
      { path: '/p/s1.jsonl', values: main },
      { path: '/p/s1/subagents/agent-a77.jsonl', values: sub },
    ]);
    expect(r.defaultBranch).toBe('main');
    expect(r.of('record').filter((e) => e.type === 'leaf')).toEqual([]);
    expect(r.events.at(-1)).toMatchObject({ kind: 'response', request: 'msg_2', file: 0, line: 6 });
    expect(r.events.at(-1)?.branch).toBeUndefined();
    // The subagent's own responses are written in its file, before it.
    expect(
      r
        .of('response')
        .filter((e) => e.branch === 'agent-a77')
        .map((e) => [e.request, e.file]),
    ).toEqual([
      ['msg_s1', 1],
      ['msg_s2', 1],
    ]);
  });

  it('a main file whose newest leaf has no response to hold back (a rewound prompt) keeps it the default with a leaf record in the main file', () => {
    const values = [...main, user('u2', 'a1', 'Do not spawn anything; just read mix.exs.')];
    const r = importFiles([
      { path: '/p/s1.jsonl', values },
      { path: '/p/s1/subagents/agent-a77.jsonl', values: sub },
    ]);
    expect(r.branches()).toEqual(['main', 'rewind-1', 'agent-a77']);
    expect(r.defaultBranch).toBe('rewind-1');
    expect(r.events.at(-1)).toMatchObject({ kind: 'record', type: 'leaf', branch: 'rewind-1', file: 0, line: 7 });
  });

  it('links through toolUseResult.agentId when no agent_progress names it', () => {
    const noProgress = main.filter((v) => v.type !== 'progress');
    const r = importFiles([
      { path: '/p/s1.jsonl', values: noProgress },
      { path: '/p/s1/subagents/agent-a77.jsonl', values: sub },
    ]);
    expect(r.of('fork')[0]).toMatchObject({ branch: 'agent-a77' });
  });

  it('an unlinkable subagent is a branch of its own with its own (unknown) envelope, reported', () => {
    const r = importFiles([
      { path: '/p/s1.jsonl', values: main.slice(0, 2) },
      { path: '/p/s1/subagents/agent-a77.jsonl', values: sub },
    ]);
    expect(r.of('fork')).toEqual([]);
    expect(r.diag('CC_SUBAGENT_UNLINKED')).toMatchObject({ severity: 'info', file: '/p/s1/subagents/agent-a77.jsonl' });
    const v = r.view(0, 'agent-a77');
    expect(v.items.map((i) => i.id)).toEqual(['s1']);
    expect(v.system).toBeNull();
  });
});

describe('claude-code: sessionFiles', () => {
  it('lists subagent files of a main file, subagents before summarizers', async () => {
    const files = await claudeCodeImporter.sessionFiles?.(`${FIXTURES}${BIG}.jsonl`, false);
    expect(files?.map((f) => f.slice(FIXTURES.length))).toEqual([
      `${BIG}/subagents/agent-a2898e3.jsonl`,
      `${BIG}/subagents/agent-acompact-e1f845.jsonl`,
    ]);
    expect(await claudeCodeImporter.sessionFiles?.(`${FIXTURES}short.jsonl`, false)).toEqual([]);
    expect(await claudeCodeImporter.sessionFiles?.(`${FIXTURES}${BIG}/subagents/agent-a2898e3.jsonl`, false)).toEqual([]);
  });

  it('claims a session directory that has its main file next to it, and nothing else', async () => {
    const files = await claudeCodeImporter.sessionFiles?.(`${FIXTURES}${BIG}`, true);
    expect(files?.map((f) => f.slice(FIXTURES.length))).toEqual([
      `${BIG}.jsonl`,
      `${BIG}/subagents/agent-a2898e3.jsonl`,
      `${BIG}/subagents/agent-acompact-e1f845.jsonl`,
    ]);
    expect(await claudeCodeImporter.sessionFiles?.(FIXTURES, true)).toBeNull();
    const dir = mkdtempSync(join(tmpdir(), 'cc-'));
    mkdirSync(join(dir, 's', 'subagents'), { recursive: true });
    writeFileSync(join(dir, 's', 'subagents', 'notes.txt'), '');
    writeFileSync(join(dir, 's.jsonl'), '');
    expect(await claudeCodeImporter.sessionFiles?.(join(dir, 's'), true)).toEqual([join(dir, 's.jsonl')]);
  });
});

describe('claude-code 2.0.x: subagent files beside the session (agent-*.jsonl)', () => {
  // As Claude Code 2.0.x wrote them: the transcript of a Task subagent in the project folder, its
  // first line naming the session it belongs to.
  const S = '5c0375b4-57a5-4f26-b12d-d022ee4e51b7';
  const env = { userType: 'external', cwd: '/w', sessionId: S, version: '2.0.28', gitBranch: '' };
  const main = [
    { ...user('u1', null, 'Run the tests.'), ...env },
    {
      ...assistant('a1', 'u1', 'msg_1', [toolUse('toolu_1', 'Task', { prompt: 'Run the test suite', subagent_type: 'general-purpose' })]),
      ...env,
    },
    { ...toolResult('r1', 'a1', 'toolu_1', 'All pass', { toolUseResult: { status: 'completed', agentId: 'abc123' } }), ...env },
  ];
  const agent = [
    { ...side(user('s1', null, 'Run the test suite'), 'abc123'), ...env },
    { ...side(assistant('s2', 's1', 'msg_s1', [text('All pass')], { input_tokens: 100, output_tokens: 10 }), 'abc123'), ...env },
  ];
  const other = [{ ...side(user('w1', null, 'Warmup'), 'fff999'), ...env, sessionId: 'another-session' }];
  const jsonl = (vs: readonly Record<string, unknown>[]) => `${vs.map((v) => JSON.stringify(v)).join('\n')}\n`;
  const project = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'cc20-'));
    writeFileSync(join(dir, `${S}.jsonl`), jsonl(main));
    writeFileSync(join(dir, 'agent-abc123.jsonl'), jsonl(agent));
    writeFileSync(join(dir, 'agent-fff999.jsonl'), jsonl(other));
    return dir;
  };

  it('are files of the session their first line names, and are read as its subagents', async () => {
    const dir = project();
    expect(await claudeCodeImporter.sessionFiles?.(join(dir, `${S}.jsonl`), false)).toEqual([join(dir, 'agent-abc123.jsonl')]);
    // Opened on its own, such a file is read alone.
    expect(await claudeCodeImporter.sessionFiles?.(join(dir, 'agent-abc123.jsonl'), false)).toEqual([]);
    const r = importFiles([
      { path: join(dir, `${S}.jsonl`), values: main },
      { path: join(dir, 'agent-abc123.jsonl'), values: agent },
    ]);
    expect(r.branches()).toEqual(['main', 'agent-abc123']);
    expect(r.of('fork')[0]).toMatchObject({ branch: 'agent-abc123', inherit: false });
    expect(r.rules()).toEqual([]);
  });
});

describe('claude-code 2.0.71: a real session with its top-level agent files', () => {
  // fixtures/corpus (HillviewCap/Personal_AI_Infrastructure, MIT): two "Warmup" subagents beside
  // the session they name, as Claude Code 2.0.71 wrote them.
  const DIR = fileURLToPath(new URL('../../../../fixtures/corpus/claude-code/hillviewcap-personal-ai-infrastructure/', import.meta.url));
  const S = '155715ec-f4e9-47ea-859c-2e4cfcceab6f';
  const read = (name: string) =>
    readFileSync(DIR + name, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);

  it('the session names them as its files, and reads them as branches of its own', async () => {
    const files = await claudeCodeImporter.sessionFiles?.(`${DIR}${S}.jsonl`, false);
    expect(files).toEqual([`${DIR}agent-a4e3ca2.jsonl`, `${DIR}agent-a9d48ea.jsonl`]);
    const r = importFiles([`${S}.jsonl`, 'agent-a4e3ca2.jsonl', 'agent-a9d48ea.jsonl'].map((n) => ({ path: DIR + n, values: read(n) })));
    expect(r.branches()).toEqual(['main', 'agent-a4e3ca2', 'agent-a9d48ea']);
    expect(r.replay('agent-a9d48ea').requests.map((q) => q.id)).toEqual(['msg_01E6ktS1V8yGDKCkZQQozCqn']);
    expect(r.defaultBranch).toBe('main');
  });
});

describe("claude-code 2.0.77: the fidelity run's top-level agent files", () => {
  // fixtures/fidelity/logs: Claude Code 2.0.77 against the mock. Its project folder holds the
  // sessions of every turn and the "Warmup" subagent files of each, beside them.
  const DIR = fileURLToPath(new URL('../../../../fixtures/fidelity/logs/claude-code-2.0.77/tools-resume/', import.meta.url));
  const run = JSON.parse(readFileSync(`${DIR}run.json`, 'utf8')) as { mainLog: string; sessionId: string };
  const main = DIR + run.mainLog;
  const project = dirname(main);
  const sessionOf = (name: string): unknown =>
    (JSON.parse(readFileSync(join(project, name), 'utf8').split('\n')[0] as string) as { sessionId?: unknown }).sessionId;

  it('the session names the agent files whose first line names it, and reads them as branches of its own', async () => {
    const agents = readdirSync(project).filter((n) => n.startsWith('agent-'));
    const mine = agents.filter((n) => sessionOf(n) === run.sessionId).sort();
    // Other sessions' agent files lie in the same folder.
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.length).toBeLessThan(agents.length);
    expect(await claudeCodeImporter.sessionFiles?.(main, false)).toEqual(mine.map((n) => join(project, n)));
    const ins = new SessionInspector(await loadSession(main));
    try {
      expect(ins.defaultBranch).toBe('main');
      expect(ins.branches.map((b) => b.name)).toEqual(['main', ...mine.map((n) => n.replace(/\.jsonl$/, ''))]);
      for (const n of mine) expect(ins.replay(n.replace(/\.jsonl$/, '')).requests).toHaveLength(1);
      expect(ins.session.diagnostics.filter((d) => d.severity !== 'info')).toEqual([]);
    } finally {
      await ins.session.dispose();
    }
  });
});

describe('claude-code: a subagent file opened on its own', () => {
  it('is a session whose main branch is the subagent conversation', () => {
    const r = importFiles([{ path: '/p/s1/subagents/agent-a77.jsonl', values: sub }]);
    expect(r.branches()).toEqual(['main']);
    expect(r.replay().requests.map((q) => q.id)).toEqual(['msg_s1', 'msg_s2']);
    expect(r.diagnostics).toEqual([]);
  });
});

describe('claude-code: a summarizer file whose boundary has no summary', () => {
  it('puts a record inherited from the main file at the end when the item it would have gone before was just dropped (found by the robustness property)', () => {
    const mainFile = [assistant('a1', null, 'msg_1', [toolUse('toolu_1')]), progress('p1', 'a1')];
    const summarizer = [
      // A line of no known type first (kept as an unknown event).
      { type: {}, messageId: 'm', snapshot: { messageId: 'm', trackedFileBackups: {} }, isSnapshotUpdate: false },
      // Hangs off the main file's progress record after a1: the summarizer's own copy of that message.
      assistant('s1', 'p1', 'msg_1', [toolUse('toolu_2', 'Glob')]),
      boundary('b1', undefined),
      // Also hangs off a1, so it would go before s1 — which the boundary, left without a summary, drops.
      toolResult('u1', 'a1', 'toolu_1', 'rejected'),
    ];
    const r = importFiles([
      { path: '/p/s.jsonl', values: mainFile },
      { path: '/p/s/subagents/agent-acompact-1.jsonl', values: summarizer },
    ]);
    const u1 = r.of('item').find((e) => e.item.id === 'u1');
    expect(u1?.op).toEqual({ op: 'append' });
    for (const b of r.branches())
      expect(
        r.replay(b).diagnostics.filter((d) => d.severity === 'error'),
        b,
      ).toEqual([]);
    expect(r.replay('agent-acompact-1').surface.live.ids.map((i) => r.replay('agent-acompact-1').items[i]?.id)).toContain('u1');
  });
});

describe('claude-code: files that copy the conversation by design', () => {
  // Current Claude Code writes a summarizer's or a side question's file as a copy of the
  // conversation (the same records, uuids included) followed by its own prompt and answer.
  const convo = [
    user('u1', null, 'Fix the bug.'),
    assistant('a1', 'u1', 'msg_1', [text('Fixed.')], { input_tokens: 3, cache_read_input_tokens: 100, output_tokens: 9 }),
    user('u2', 'a1', 'Now the docs.'),
    assistant('a2', 'u2', 'msg_2', [text('Docs updated.')], { input_tokens: 3, cache_read_input_tokens: 150, output_tokens: 9 }),
  ];
  const copy = (agentId: string, upTo: number) => convo.slice(0, upTo).map((v) => side(v, agentId));

  it('a side question: its copies are no duplicates, its question is no unlogged context, its view is the conversation and the question', () => {
    const id = 'aside_question-c5e5c961a7749e08';
    const aside = [
      ...copy(id, 2),
      side(user('q1', 'a1', 'Which file did you change?'), id),
      side(assistant('q2', 'q1', 'msg_q', [text('src/bug.ts.')], { input_tokens: 5, cache_read_input_tokens: 120, output_tokens: 4 }), id),
    ];
    const r = importFiles([
      { path: '/p/s1.jsonl', values: convo },
      { path: `/p/s1/subagents/agent-${id}.jsonl`, values: aside },
    ]);
    expect(r.rules()).toEqual([]);
    expect(r.branches()).toEqual(['main', `agent-${id}`]);
    expect(r.of('fork')[0]?.label).toMatch(/^side question aside_question-c5e5c961a7749e08 \(after line 2 of the main file\)/);
    const st = r.replay(`agent-${id}`);
    expect(st.requests.at(-1)?.id).toBe('msg_q');
    expect(r.view(st.requests.length - 1, `agent-${id}`).items.map((i) => i.id)).toEqual(['u1', 'msg_1', 'q1']);
    // The conversation lacks nothing: its views never hold the question.
    expect(r.view(1, 'main').items.map((i) => i.id)).toEqual(['u1', 'msg_1', 'u2']);
    expect(r.defaultBranch).toBe('main');
  });

  it('a side question whose copy holds system records too (turn_duration) still forks where its question hangs', () => {
    const id = 'aside_question-c5e5c961a7749e08';
    const turn = {
      type: 'system',
      subtype: 'turn_duration',
      uuid: 't1',
      parentUuid: 'a1',
      durationMs: 5,
      messageCount: 2,
      isSidechain: false,
    };
    const main = [...convo.slice(0, 2), turn, ...convo.slice(2)];
    const aside = [
      ...copy(id, 2),
      side(turn, id),
      side(user('q1', 't1', 'Which file did you change?'), id),
      side(assistant('q2', 'q1', 'msg_q', [text('src/bug.ts.')], { input_tokens: 5, cache_read_input_tokens: 120, output_tokens: 4 }), id),
    ];
    const r = importFiles([
      { path: '/p/s1.jsonl', values: main },
      { path: `/p/s1/subagents/agent-${id}.jsonl`, values: aside },
    ]);
    expect(r.rules()).toEqual([]);
    expect(r.of('fork')[0]?.label).toMatch(/^side question aside_question-c5e5c961a7749e08 \(after line 2 of the main file\)/);
    const st = r.replay(`agent-${id}`);
    expect(r.view(st.requests.length - 1, `agent-${id}`).items.map((i) => i.id)).toEqual(['u1', 'msg_1', 'q1']);
  });

  // The same on a real side question (Claude Code 2.1.92, Xu-Wentao/dotfile, fetched: see
  // fixtures/corpus/remote.json): 76 of its 78 records copy the main file's, uuids included.
  const REAL = 'xu-wentao-dotfile/7ef4b236-d946-48a6-a856-e45b02af7be7';
  const REAL_ASIDE = 'aside_question-fcbf929fc3d4fdc0';
  const QUESTION = '239e9f7b-22ad-417d-9b13-443149b8cf66';
  const realFiles = [`${REAL}.jsonl`, `${REAL}/subagents/agent-a957850183dbc96f4.jsonl`, `${REAL}/subagents/agent-${REAL_ASIDE}.jsonl`];
  it.skipIf(!fetched(...realFiles))('a real side question: no duplicates, no unlogged context, forked where its question hangs', () => {
    const r = importFiles(realFiles.map(readFetched));
    expect(r.rules()).not.toContain('CC_DUPLICATE_UUID');
    expect(r.rules()).not.toContain('CC_UNLOGGED_CONTEXT');
    const branch = `agent-${REAL_ASIDE}`;
    expect(r.of('fork').find((e) => e.branch === branch)?.label).toMatch(
      /^side question aside_question-fcbf929fc3d4fdc0 \(after line 80 of the main file\)/,
    );
    const st = r.replay(branch);
    expect(st.requests.at(-1)?.id).toBe('msg_01FTHc5L6UnSD1SQoZXo9jyn');
    // Its view is the conversation up to its line 80's answer, then the question.
    expect(
      r
        .view(st.requests.length - 1, branch)
        .items.map((i) => i.id)
        .slice(-2),
    ).toEqual(['msg_012J3DrkLW1uZaUFbMDJjWmL', QUESTION]);
    expect(r.defaultBranch).toBe('main');
  });

  it('a summarizer: its copies are records of its branch, not duplicates', () => {
    const id = 'acompact-767ece576f2b74e8';
    const main = [
      ...convo,
      boundary('cb', 'a2'),
      { ...user('cs', 'cb', 'This session is being continued from a previous conversation. Summary: …'), isCompactSummary: true },
    ];
    const acompact = [
      ...copy(id, 4),
      side(user('m2', 'a2', 'Your task is to create a detailed summary of the conversation so far…'), id),
      side(
        assistant('s1', 'm2', 'msg_sum', [text('<summary>…</summary>')], {
          input_tokens: 3,
          cache_read_input_tokens: 160,
          output_tokens: 40,
        }),
        id,
      ),
    ];
    const r = importFiles([
      { path: '/p/s1.jsonl', values: main },
      { path: `/p/s1/subagents/agent-${id}.jsonl`, values: acompact },
    ]);
    expect(r.rules()).toEqual([]);
    expect(
      r
        .of('record')
        .filter((e) => e.branch === `agent-${id}`)
        .map((e) => e.summary),
    ).toEqual(['u1', 'a1', 'u2', 'a2'].map((u) => `copy of the conversation's record ${u}`));
    expect(r.replay(`agent-${id}`).requests.at(-1)).toMatchObject({ id: 'msg_sum', purpose: 'compaction', compactionId: 'cb' });
  });

  it('any other file reusing a uuid of the session is still reported', () => {
    const r = importFiles([
      { path: '/p/s1.jsonl', values: convo },
      { path: '/p/s1/subagents/agent-a77.jsonl', values: copy('a77', 2) },
    ]);
    expect(r.rules()).toContain('CC_DUPLICATE_UUID');
  });
});
