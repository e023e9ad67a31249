import { readFileSync, readdirSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { SessionInspector } from '../../src/main/session/inspector';
import { loadSession } from '../../src/main/session/load';
import type { LoadedSession } from '../../src/main/session/types';
import type { Block } from '../../src/shared/model/content';
import type { LogEvent } from '../../src/shared/model/event';
import type { ModelView } from '../../src/shared/model/view';
import { replay } from '../../src/shared/replay/fold';
import { modelView } from '../../src/shared/replay/view';

/**
 * Golden tests through the real loader: the fixtures are written by scripts/gen-rind-cosh-fixtures.ts
 * from the harnesses' sources (no public session of either exists), and these tests pin the model
 * views they must give.
 */

const RIND = 'fixtures/rind/20260514_101500_a1b2c3d4';
const RIND_BAD = 'fixtures/rind/20260514_120000_deadbeef';
const COSH = 'fixtures/cosh/session-ses_7f3a.jsonl';
const COSH_MR = 'fixtures/cosh/session-ses_mr01.jsonl';
const COSH_BAD = 'fixtures/cosh/session-ses_bad0.jsonl';

const opened: LoadedSession[] = [];
async function open(path: string): Promise<SessionInspector> {
  const s = await loadSession(path);
  opened.push(s);
  return new SessionInspector(s);
}
afterAll(async () => {
  await Promise.all(opened.map((s) => s.dispose()));
});

const text = (t: string): Block => ({ type: 'text', text: t });
/** What the model saw, item by item: id, role and blocks (masked items: their reference). */
const seen = (v: ModelView | null): { id: string; role: string; blocks: readonly Block[] | null }[] =>
  (v?.items ?? []).map((i) => ({ id: i.id, role: i.role, blocks: i.blocks }));
const idsOf = (v: ModelView | null): string[] => (v?.items ?? []).map((i) => `${i.id}${i.rendition === 'masked' ? '*' : ''}`);
const rules = (ins: SessionInspector, severity?: string): string[] =>
  ins
    .diagnostics()
    .filter((d) => severity === undefined || d.severity === severity)
    .map((d) => d.rule)
    .sort();

const CONTINUATION = 'Continue from the compacted conversation state. Use the compact handoff below as the source of prior context.';
/** Lines of a fixture file, parsed. */
const rowsOf = (path: string): Record<string, unknown>[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((x) => x.trim() !== '')
    .map((x) => JSON.parse(x) as Record<string, unknown>);
const K1_HANDOFF =
  '## Objective\nMake `formatDate` pass on CI (UTC) without changing the test.\n## Done\n- src/date.ts now uses getUTC*().\n## Next\n- Run the tests.';
/** The long texts, as they must come back: read from the fixture independently of the importer. */
const K4_HANDOFF = (rowsOf(`${RIND}/compactions.jsonl`).find((c) => c.id === 'k4')?.handoff_message as { content: string }).content;
const CALL_06_OUTPUT = rowsOf(`${RIND}/tool_calls.jsonl`).find((t) => t.id === 'call_06')?.model_content as string;
/** The text of a view item's only text (or tool result text) block. */
const textIn = (v: ModelView | null, id: string): string => {
  const b = v?.items.find((i) => i.id === id)?.blocks?.[0];
  if (b?.type === 'text') return b.text;
  const c = b?.type === 'tool_result' ? b.content[0] : undefined;
  return c?.type === 'text' ? c.text : '';
};

describe('golden: Rind session directory', () => {
  it('is read as one session, joined files first; its health lists exactly the half-written pairs and the unknown role', async () => {
    const ins = await open(RIND);
    expect(ins.session.format).toBe('rind');
    expect(ins.session.files.map((f) => f.path.split('/').pop())).toEqual(['compactions.jsonl', 'tool_calls.jsonl', 'messages.jsonl']);
    expect(rules(ins, 'error')).toEqual([]);
    // Importer findings (half-written pairs, an unknown role), then the catalog's on compaction k2,
    // a deterministic fallback that summarised a pending user message with no visible marker.
    expect(rules(ins, 'warning')).toEqual([
      'HALF_WRITTEN_COMPACTION',
      'PENDING_USER_SUMMARISED',
      'RIND_MARKER_WITHOUT_RECORD',
      'SILENT_FALLBACK',
      'SUMMARY_NOT_SMALLER',
      'UNKNOWN_RECORDS',
    ]);
    const unknown = ins.diagnostics().find((d) => d.rule === 'UNKNOWN_RECORDS');
    expect(unknown).toMatchObject({ line: 21, file: expect.stringMatching(/messages\.jsonl$/) });
    expect(unknown?.message).toMatch(/^1 record of kind role "developer"/);
    expect([...ins.session.events].filter((e) => e.kind === 'unknown').map((e) => e.kind === 'unknown' && e.type)).toEqual([
      'message/developer',
    ]);
    const half = ins.diagnostics().find((d) => d.rule === 'HALF_WRITTEN_COMPACTION');
    expect(half).toMatchObject({ line: 3, file: expect.stringMatching(/compactions\.jsonl$/) });
    expect(ins.replay().requests.map((r) => r.id)).toEqual(['req-1', 'req-2', 'req-3', 'req-4', 'req-5', 'req-6', 'req-7', 'req-8']);
  });

  it('request 2: results joined from tool_calls.jsonl right after their call, in call order', async () => {
    const ins = await open(RIND);
    const v = ins.view(1);
    expect(v?.system).toEqual([]);
    expect(v?.unknowns).toEqual(['tool schemas: the log does not record them']);
    expect(seen(v)).toEqual([
      { id: 'm01', role: 'system', blocks: [text('You are Rind, a coding agent. Work in /home/ada/cal.')] },
      { id: 'm02', role: 'user', blocks: [text('The test `formatDate` fails on CI only. Find out why.')] },
      {
        id: 'm03',
        role: 'assistant',
        blocks: [
          { type: 'reasoning', text: 'Read the test and check the CI timezone.' },
          { type: 'tool_call', id: 'call_01', name: 'read_file', input: '{"path":"test/date.test.ts"}' },
          { type: 'tool_call', id: 'call_02', name: 'run_shell', input: '{"cmd":"echo $TZ"}' },
        ],
      },
      {
        id: 'result-call_01',
        role: 'tool',
        blocks: [
          { type: 'tool_result', callId: 'call_01', content: [text("expect(formatDate(new Date(2026, 0, 1))).toBe('2026-01-01')")] },
        ],
      },
      { id: 'm04', role: 'tool', blocks: [{ type: 'tool_result', callId: 'call_02', content: [text('Europe/Rome')] }] },
    ]);
  });

  it('after the first compaction: system messages, then continuation + handoff, then the tail', async () => {
    const ins = await open(RIND);
    const v = ins.view(3);
    const covered = ['m02', 'm03', 'result-call_01', 'm04', 'm06', 'm07', 'm08', 'm09'];
    expect(seen(v)).toEqual([
      { id: 'm01', role: 'system', blocks: [text('You are Rind, a coding agent. Work in /home/ada/cal.')] },
      { id: 'k1:continuation', role: 'user', blocks: [text(CONTINUATION)] },
      { id: 'k1:handoff', role: 'assistant', blocks: [text(K1_HANDOFF)] },
    ]);
    expect(v?.items[1]?.derivation).toEqual({ kind: 'checkpoint', compactionId: 'k1', covers: covered, part: 'continuation' });
    expect(v?.items[2]?.derivation).toEqual({ kind: 'checkpoint', compactionId: 'k1', covers: covered, part: 'handoff' });
    const fates = new Map(ins.fates(3).map((f) => [f.id, f.fate]));
    expect(fates.get('m01')).toEqual({ fate: 'verbatim' });
    for (const id of covered) expect(fates.get(id)).toEqual({ fate: 'summarised', compactionId: 'k1', by: 'k1:continuation' });
    const c = ins.replay().compactions.find((x) => x.id === 'k1');
    expect(c).toMatchObject({
      outcome: 'committed',
      strategy: 'llm_inline',
      trigger: 'auto',
      policy: { name: 'compact_boundary_v3' },
      usage: { input: 62_400, cacheRead: 120_000, context: 182_400, output: 310 },
    });
    // Provenance reaches the compaction record in compactions.jsonl.
    const record = [...ins.session.events].find((e) => e.kind === 'record' && e.type === 'compaction' && e.summary?.includes('k1'));
    expect(v?.items[2]?.provenance).toContain(record?.seq);
  });

  it('long texts come back whole: a tool result re-read from tool_calls.jsonl, a handoff from compactions.jsonl', async () => {
    const ins = await open(RIND);
    expect(CALL_06_OUTPUT.length).toBeGreaterThan(2_000);
    expect(K4_HANDOFF.length).toBeGreaterThan(2_000);
    const elided = (v: ModelView | null, id: string): number => {
      const b = v?.items.find((i) => i.id === id)?.blocks?.[0];
      const x = b?.type === 'tool_result' ? b.content[0] : b;
      return x?.type === 'text' ? (x.elided ?? 0) : 0;
    };
    // In memory both are previews …
    const before = ins.view(6);
    const after = ins.view(7);
    expect(textIn(before, 'm18').length).toBeLessThan(400);
    expect(elided(before, 'm18')).toBeGreaterThan(1_600);
    expect(elided(after, 'k4:handoff')).toBeGreaterThan(1_600);
    // … located at the lines that hold their text, in the other files of the session …
    const at = (pred: (e: LogEvent) => boolean): { file: string | undefined; line: number } | null => {
      const e = [...ins.session.events].find(pred);
      const loc = e ? ins.session.loc(e.seq) : null;
      return loc ? { file: ins.session.files[loc.file]?.path.split('/').pop(), line: loc.line } : null;
    };
    const item =
      (id: string) =>
      (e: LogEvent): boolean =>
        e.kind === 'item' && e.item.id === id;
    expect(at(item('m18'))).toEqual({ file: 'tool_calls.jsonl', line: 6 });
    expect(at(item('k4:handoff'))).toEqual({ file: 'compactions.jsonl', line: 4 });
    expect(at(item('k4:continuation'))).toEqual({ file: 'compactions.jsonl', line: 4 });
    // … and the full views re-read them whole from there.
    const fullBefore = await ins.fullView(6);
    expect(fullBefore?.items.find((i) => i.id === 'm18')?.blocks).toEqual([
      { type: 'tool_result', callId: 'call_06', content: [text(CALL_06_OUTPUT)] },
    ]);
    expect(fullBefore?.items.map((i) => i.id)).toEqual(before?.items.map((i) => i.id));
    const fullAfter = await ins.fullView(7);
    expect(textIn(fullAfter, 'k4:handoff')).toBe(K4_HANDOFF);
    expect(textIn(fullAfter, 'k4:continuation')).toBe(CONTINUATION);
    // The llm_inline summary event holds its record's handoff and is re-read the same way.
    const summary = (e: LogEvent): boolean => e.kind === 'compaction/summary' && e.id === 'k1';
    expect(at(summary)).toEqual({ file: 'compactions.jsonl', line: 1 });
    const hydrated = await ins.session.hydrate([...ins.session.events].find(summary)?.seq ?? -1);
    expect(hydrated.kind === 'compaction/summary' ? hydrated.summary : null).toEqual([text(K1_HANDOFF)]);
  });

  it('a context-length error: the rejected request, then the deterministic fallback pair', async () => {
    const ins = await open(RIND);
    const failed = ins.view(4);
    expect(failed?.request.error?.code).toBe('context_length_exceeded');
    expect(idsOf(failed)).toEqual(['m01', 'k1:continuation', 'k1:handoff', 'm11', 'm12', 'm13', 'm14']);
    expect(failed?.items.find((i) => i.id === 'm14')?.meta).toBe(true);
    expect(idsOf(ins.view(5))).toEqual(['m01', 'k2:continuation', 'k2:handoff']);
    const c = ins.replay().compactions.find((x) => x.id === 'k2');
    expect(c).toMatchObject({
      trigger: 'overflow',
      strategy: 'deterministic_fallback',
      outcome: 'fallback',
      fallback: { kind: 'deterministic', marker: false },
      error: { code: 'ValueError', message: 'compact model returned empty handoff' },
    });
    expect(ins.fates(5).find((f) => f.id === 'k1:handoff')?.fate).toEqual({
      fate: 'summarised',
      compactionId: 'k2',
      by: 'k2:continuation',
    });
  });

  it('the last request: the manual handoff; the orphan marker and the unmarked record change nothing; usage from meta.json', async () => {
    const ins = await open(RIND);
    const v = ins.view(7);
    expect(idsOf(v)).toEqual(['m01', 'k4:continuation', 'k4:handoff', 'm24']);
    expect(v?.request.usage).toEqual({ input: 310, cacheRead: 3_900, context: 4_210, output: 18 });
    expect(v?.request.reportedInputTokens).toBe(4_210);
    const fates = new Map(ins.fates(7).map((f) => [f.id, f.fate]));
    for (const id of ['m18', 'm20']) expect(fates.get(id)).toEqual({ fate: 'summarised', compactionId: 'k4', by: 'k4:continuation' });
    expect(fates.get('k2:handoff')).toEqual({ fate: 'summarised', compactionId: 'k4', by: 'k4:continuation' });
    expect(ins.replay().compactions.map((c) => [c.id, c.outcome, c.strategy])).toEqual([
      ['k1', 'committed', 'llm_inline'],
      ['k2', 'fallback', 'deterministic_fallback'],
      ['k4', 'committed', 'manual_deterministic'],
    ]);
    const full = await ins.fullView(7);
    expect(full?.items.map((i) => i.id)).toEqual(v?.items.map((i) => i.id));
  });

  it('opened as a lone messages.jsonl, the companions are read and the views are the same', async () => {
    const dir = await open(RIND);
    const lone = await open(`${RIND}/messages.jsonl`);
    expect(lone.session.format).toBe('rind');
    for (let i = 0; i < 8; i++) expect(seen(lone.view(i))).toEqual(seen(dir.view(i)));
    expect(rules(lone, 'info')).toContain('RIND_COMPANIONS');
  });

  it('bad input: reported with file and line, never a crash, and the rest still builds views', async () => {
    const ins = await open(RIND_BAD);
    expect(rules(ins, 'error')).toEqual([
      'RIND_BAD_RECORD',
      'RIND_BAD_RECORD',
      'RIND_BAD_RECORD',
      'RIND_MISSING_TOOL_RESULT',
      'RIND_MISSING_TOOL_RESULT',
    ]);
    expect(rules(ins, 'warning')).toEqual([
      'RIND_DUPLICATE_TOOL_RECORD',
      'RIND_INVALID_COMPACTION',
      'RIND_MARKER_WITHOUT_RECORD',
      'RIND_META',
      'RIND_ORPHAN_TOOL_RESULT',
      'RIND_UNANSWERED_CALL',
    ]);
    expect(idsOf(ins.view(2))).toEqual(['m01', 'm02', 'm03', 'm04', 'm05', 'm06', 'm07', 'm08', 'm09']);
    expect(ins.view(2)?.items.find((i) => i.id === 'm04')?.blocks).toEqual([
      { type: 'tool_result', callId: 'x1', content: [text('a.txt\nb.txt\nc.txt')] },
    ]);
    expect(ins.view(2)?.items.find((i) => i.id === 'm07')?.blocks).toEqual([
      {
        type: 'tool_result',
        callId: 'x3',
        content: [{ type: 'opaque', label: 'tool result not recorded (its tool record has no model_content)' }],
      },
    ]);
  });
});

const ROOT = 'ses_7f3a';
const FORK = 'ses_9c1e';
const MASKED = '[Historical tool result masked from the active view; source context item #6 remains in the immutable session history.]';

describe('golden: cosh history', () => {
  it('one file, two branches; nothing to report but what cosh does not log', async () => {
    const ins = await open(COSH);
    expect(ins.session.format).toBe('cosh');
    expect(ins.branches.map((b) => b.name)).toEqual([ROOT, FORK]);
    expect(ins.diagnostics(ROOT).map((d) => [d.rule, d.severity])).toEqual([['COSH_UNLOGGED_CONTEXT', 'info']]);
    expect(ins.diagnostics(FORK).map((d) => d.rule)).toEqual(['COSH_UNLOGGED_CONTEXT']);
    const v = ins.view(0, ROOT);
    expect(v?.system).toBeNull();
    expect(v?.tools).toBeNull();
    expect(v?.request.route).toEqual({ provider: 'anthropic', model: 'claude-sonnet-4-5' });
  });

  it('a masked result is a typed reference from the request after the mask call; the plan is at the tail', async () => {
    const ins = await open(COSH);
    const v = ins.view(3, ROOT);
    expect(idsOf(v)).toEqual(['1', '2', '3', '4', '5', '6*', '7', '8']);
    expect(v?.items[5]?.blocks).toEqual([{ type: 'tool_result', callId: 'tc2', content: [text(MASKED)] }]);
    expect(v?.items[1]?.blocks).toEqual([
      { type: 'reasoning', text: 'Read the client first.' },
      { type: 'tool_call', id: 'tc1', name: 'fs_read', input: '{"path":"src/http.ts"}' },
    ]);
    expect(v?.todo).toMatchObject({
      todos: [
        { content: 'Add backoff to fetchJson', status: 'InProgress' },
        { content: 'Cover timeouts in tests', status: 'Pending' },
      ],
      after: '4',
    });
    expect(ins.fates(3, ROOT).find((f) => f.id === '6')?.fate).toEqual({ fate: 'masked' });
    // Before the mask call the result was sent whole; the full text is re-read from its line.
    const before = await ins.fullView(2, ROOT);
    const full = before?.items.find((i) => i.id === '6')?.blocks?.[0];
    expect(full?.type === 'tool_result' && full.content[0]?.type === 'text' ? full.content[0].text : '').toMatch(
      /^✓ fetchJson retries case 1 .*41 tests, 1 failed$/s,
    );
  });

  it('after the checkpoint: checkpoint + raw tail + plan; the covered prefix is summarised, the swept chain hidden', async () => {
    const ins = await open(COSH);
    const v = ins.view(7, ROOT);
    expect(idsOf(v)).toEqual(['18', '15', '16', '17']);
    expect(v?.items[0]).toMatchObject({
      role: 'assistant',
      kind: 'checkpoint',
      derivation: {
        kind: 'checkpoint',
        compactionId: 'cmp-18',
        part: 'summary',
        covers: ['1', '2', '3', '4', '5', '6', '9', '10', '11', '12', '13', '14~2'],
      },
    });
    expect(v?.items[0]?.blocks?.[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/^## Objective\nfetchJson retries/) });
    expect(v?.todo?.todos.map((t) => t.status)).toEqual(['Completed', 'InProgress']);
    const fates = new Map(ins.fates(7, ROOT).map((f) => [f.id, f.fate]));
    for (const id of ['1', '2', '3', '4', '5', '6', '9', '10', '11', '12', '13', '14~2'])
      expect(fates.get(id)).toEqual({ fate: 'summarised', compactionId: 'cmp-18', by: '18' });
    expect(fates.get('7')).toEqual({ fate: 'dropped', reason: 'hidden' });
    expect(fates.get('14')).toEqual({ fate: 'dropped', reason: 'replaced', by: '14~2' });
    expect(fates.get('15')).toEqual({ fate: 'verbatim' });
    expect(ins.replay(ROOT).compactions.map((c) => [c.id, c.outcome, c.strategy])).toEqual([['cmp-18', 'committed', 'checkpoint']]);
  });

  it('the fork keeps what its message selected: the raw history the checkpoint covered is back, with the plan bound there', async () => {
    const ins = await open(COSH);
    const reqs = ins.replay(FORK).requests;
    const v = ins.view(reqs.length - 1, FORK);
    expect(idsOf(v)).toEqual(['1', '2', '3', '4', '5', '6', '9', '10', '11', '12', '13', '14~2', '15', '16', '17', '22']);
    expect(v?.todo).toMatchObject({ todos: [{ status: 'Completed' }, { status: 'InProgress' }], after: '11' });
    expect([...ins.session.events].find((e) => e.kind === 'fork')).toMatchObject({
      branch: FORK,
      parent: { branch: ROOT },
      label: 'Add retries (jitter)',
    });
  });

  it('revert and rollback: the reverted stretch sees the state before message m13; the rollback restores the head, plan included', async () => {
    const ins = await open(COSH);
    const events = [...ins.session.events];
    const rollback = events.find((e) => e.kind === 'rollback');
    const revert = events.find((e) => e.kind === 'revert');
    expect(revert).toMatchObject({ branch: ROOT, label: 'v1: Also log each retry.' });
    expect(rollback?.kind === 'rollback' && revert?.kind === 'revert' ? rollback.target.seq : -1).toBe(
      revert?.kind === 'revert' ? revert.target.seq : -2,
    );
    // The reverted stretch, as it was before the rollback abandoned it.
    const state = replay(events, { branch: ROOT, untilSeq: (rollback?.seq ?? 0) - 1 });
    const reverted = modelView(state, state.requests.length - 1);
    expect(idsOf(reverted)).toEqual(['18', '15', '16', '17', '22~2']);
    expect(reverted?.todo?.todos.map((t) => t.status)).toEqual(['Completed', 'InProgress']);
    // After the rollback: the exact head the revert abandoned (its work and completed plan), then new work.
    const reqs = ins.replay(ROOT).requests;
    expect(idsOf(ins.view(reqs.length - 2, ROOT))).toEqual(['18', '15', '16', '17', '19', '20', '21', '22~3']);
    expect(ins.view(reqs.length - 2, ROOT)?.todo?.todos.map((t) => t.status)).toEqual(['Completed', 'Completed', 'Completed']);
    expect(idsOf(ins.view(reqs.length - 1, ROOT))).toEqual(['18', '15', '16', '17', '19', '20', '21', '22~3', '23~3', '26']);
    expect(ins.view(reqs.length - 1, ROOT)?.request.route).toEqual({ provider: 'anthropic', model: 'claude-opus-4-1', reasoning: 'high' });
  });

  it('MapReduce and the legacy split: staging versions, maps, a repartition, outcomes, and the views around them', async () => {
    const ins = await open(COSH_MR);
    // The legacy split commit of cmp-e2: reused legacy staging, a checkpoint citing none of what it
    // hid, and a smaller policy window afterwards — each true of this history.
    expect(
      ins
        .diagnostics()
        .filter((d) => d.severity !== 'info')
        .map((d) => d.rule),
    ).toEqual(['STALE_STAGING_REUSED', 'NO_PROVENANCE', 'WINDOW_CHANGED']);
    const ev = [...ins.session.events];
    expect(
      ev.filter((e) => e.kind === 'mapreduce/staging').map((e) => e.kind === 'mapreduce/staging' && [e.compactionId, e.version]),
    ).toEqual([
      ['cmp-e2', null],
      ['cmp-e20', 1],
      ['cmp-e20', 3],
      ['cmp-e35', 2],
    ]);
    expect(ev.filter((e) => e.kind === 'mapreduce/map').map((e) => e.kind === 'mapreduce/map' && [e.compactionId, e.ordinal])).toEqual([
      ['cmp-e2', 0],
      ['cmp-e2', 1],
      ['cmp-e20', 0],
      ['cmp-e20', 1],
      ['cmp-e20', 3],
      ['cmp-e20', 2],
      ['cmp-e35', 0],
    ]);
    expect(ev.find((e) => e.kind === 'mapreduce/repartition')).toMatchObject({
      attempt: 1,
      replaces: [0],
      segments: [
        { ordinal: 2, items: ['5'] },
        { ordinal: 3, items: ['6'] },
      ],
    });
    expect(ev.find((e) => e.kind === 'mapreduce/staging' && e.version === 3)).toMatchObject({
      fingerprint: 'xxh64:5=11,6=12,7=13,8=14,9=15',
    });
    expect(ins.replay().compactions.map((c) => [c.id, c.strategy, c.outcome])).toEqual([
      ['cmp-e2', 'split', 'committed'],
      ['cmp-e20', 'mapreduce', 'committed'],
      ['cmp-e35', 'mapreduce', 'failed'],
    ]);
    expect(idsOf(ins.view(2))).toEqual(['5', '6']);
    expect(idsOf(ins.view(4))).toEqual(['10', '11']);
    expect(ins.view(4)?.items[0]?.derivation).toMatchObject({ compactionId: 'cmp-e20', covers: ['5', '6', '7', '8', '9'] });
    expect(ins.fates(4).find((f) => f.id === '2')?.fate).toMatchObject({ fate: 'dropped', reason: 'compaction' });
  });

  it('bad input: unknown kinds counted per kind, broken references and lines reported, the rest replayed', async () => {
    const ins = await open(COSH_BAD);
    const unknown = ins.diagnostics('ses_bad0').filter((d) => d.rule === 'UNKNOWN_RECORDS');
    expect(unknown.map((d) => [d.line, d.message.split(',')[0]])).toEqual([
      [5, '1 record with delta "hologram"'],
      [6, '1 record with context field "prefetch"'],
      [7, '1 record with context item "Image"'],
    ]);
    expect(rules(ins, 'error')).toEqual([
      'COSH_BAD_RECORD',
      'COSH_BAD_REF',
      'COSH_BAD_REF',
      'COSH_BAD_REF',
      'COSH_BAD_REF',
      'COSH_VERSION',
    ]);
    expect(rules(ins, 'warning')).toEqual(['COSH_LEGACY', 'COSH_NON_MONOTONIC', 'UNKNOWN_RECORDS', 'UNKNOWN_RECORDS', 'UNKNOWN_RECORDS']);
    expect(idsOf(ins.view(0, 'ses_bad0'))).toEqual(['1']);
    expect([...ins.session.events].filter((e) => e.kind === 'unknown').length).toBe(4);
  });
});

describe('the fixtures cover every record kind', () => {
  const rows = (path: string): Record<string, unknown>[] =>
    readFileSync(path, 'utf8')
      .split('\n')
      .filter((x) => x.trim() !== '')
      .flatMap((x) => {
        try {
          return [JSON.parse(x) as Record<string, unknown>];
        } catch {
          return [];
        }
      });

  it('cosh: every delta type, context field, item variant, selection kind and staging version', () => {
    const lines = readdirSync('fixtures/cosh')
      .filter((f) => f.endsWith('.jsonl'))
      .flatMap((f) => rows(`fixtures/cosh/${f}`));
    const deltas = new Set<string>();
    const fields = new Set<string>();
    const variants = new Set<string>();
    const selections = new Set<string>();
    const versions = new Set<unknown>();
    for (const l of lines) {
      const d = l.delta as Record<string, unknown> | undefined;
      if (!d) continue;
      deltas.add(String(d.type));
      const c = d.change as Record<string, unknown> | undefined;
      if (d.type === 'context' && c) {
        fields.add(String(c.field));
        if (c.field === 'item_upsert' && c.item) variants.add(Object.keys(c.item as object)[0] ?? '');
        if (c.field === 'map_reduce' && c.value) versions.add((c.value as Record<string, unknown>).version);
        if ((c.field === 'split' && c.value) || (c.field === 'initialize' && c.split)) versions.add(null);
      }
      for (const r of [d.target, d.parent])
        if (r) selections.add(String(((r as Record<string, unknown>).selection as Record<string, unknown>).kind));
    }
    expect([...deltas].sort()).toEqual([
      'context',
      'fork',
      'genesis',
      'hologram',
      'message',
      'metadata',
      'revert',
      'rollback',
      'snapshot',
      'tombstone',
    ]);
    expect([...fields].sort()).toEqual([
      'hidden',
      'initialize',
      'item_remove',
      'item_upsert',
      'last_tool_set',
      'map_reduce',
      'map_segment_accepted',
      'masked',
      'max_tokens',
      'message_boundary',
      'next_id',
      'overflow_model',
      'prefetch',
      'split',
      'split_buffer_append',
      'todo',
      'visible_from',
    ]);
    expect([...variants].sort()).toEqual([
      'Assistant',
      'Closure',
      'Compaction',
      'Error',
      'Image',
      'ToolCall',
      'ToolResult',
      'User',
      'UserCommand',
    ]);
    expect([...selections].sort()).toEqual(['at_event', 'before_message', 'through_message']);
    expect([...versions]).toEqual(expect.arrayContaining([null, 1, 2, 3]));
  });

  it('Rind: every role, the three strategies, pairs with and without their half', () => {
    const messages = rows(`${RIND}/messages.jsonl`);
    const comps = rows(`${RIND}/compactions.jsonl`);
    expect(new Set(messages.map((m) => m.role))).toEqual(new Set(['system', 'user', 'assistant', 'tool', 'developer']));
    expect(new Set(comps.map((c) => c.strategy))).toEqual(new Set(['llm_inline', 'deterministic_fallback', 'manual_deterministic']));
    const markers = messages
      .filter((m) => (m.meta as Record<string, unknown> | undefined)?.kind === 'compact_boundary')
      .map((m) => (m.meta as Record<string, unknown>).compact_id);
    expect(comps.map((c) => c.id).filter((id) => !markers.includes(id))).toEqual(['k3']);
    expect(markers.filter((id) => !comps.some((c) => c.id === id))).toEqual(['k9']);
  });
});
