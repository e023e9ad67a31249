/**
 * Writes the Rind and cosh fixtures under fixtures/rind/ and fixtures/cosh/.
 *
 *   npx tsx scripts/gen-rind-cosh-fixtures.ts
 *
 * No public session of either harness exists, so these are written by us from the harnesses'
 * own source (see fixtures/rind/README.md and fixtures/cosh/README.md for the files read). This
 * script is the source of truth: each record says what it stands for. Output is deterministic.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
type Json = Record<string, unknown>;

const jsonl = (rows: readonly Json[]): string => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

// =============================================================================================
// Rind (Azzurroooo/rind @ dfe87c5): one directory per session
// =============================================================================================

/** Timestamps as Python's `datetime.now(timezone.utc).isoformat()` writes them. */
function clock(start: string): (seconds?: number) => string {
  let t = Date.parse(start);
  return (seconds = 3) => {
    t += seconds * 1000;
    return new Date(t).toISOString().replace('Z', '000+00:00');
  };
}

class RindSession {
  readonly messages: Json[] = [];
  readonly tools: Json[] = [];
  readonly compactions: Json[] = [];
  readonly tick: (s?: number) => string;
  private n = 0;

  constructor(start: string) {
    this.tick = clock(start);
  }

  /** message_repository.py: `{id, ts, role, content, tool_call_id?, tool_name?, meta?, reasoning_content?}`. */
  msg(role: string, content: string, extra: Json = {}): string {
    const id = `m${String(++this.n).padStart(2, '0')}`;
    this.messages.push({ id, ts: this.tick(), role, content, ...extra });
    return id;
  }

  /** An assistant message with tool calls: `meta.tool_calls` = `[{id, name, raw_args}]`. */
  calls(content: string, calls: [string, string, Json][], reasoning?: string): void {
    const extra: Json = { meta: { tool_calls: calls.map(([id, name, args]) => ({ id, name, raw_args: JSON.stringify(args) })) } };
    if (reasoning !== undefined) extra.reasoning_content = reasoning;
    this.msg('assistant', content, extra);
  }

  /** tool_call_repository.py (schema v2), then the `tool` message processor.py persists after it. */
  tool(
    id: string,
    name: string,
    args: Json,
    modelContent: string | null,
    opts: { ok?: boolean; errorType?: string; message?: boolean } = {},
  ): void {
    const ok = opts.ok ?? true;
    const start = this.tick(1);
    const rec: Json = {
      id,
      ts_start: start,
      ts_end: this.tick(1),
      name,
      args,
      raw_args: JSON.stringify(args),
      result: { ok, tool: name, data: { stdout: modelContent ?? '' } },
      ok,
      error_type: opts.errorType ?? null,
      error_message: ok ? null : (modelContent ?? ''),
      meta: null,
      model_content_format: 'tool_result_v2',
      model_content_policy: {},
    };
    if (modelContent !== null) rec.model_content = modelContent;
    this.tools.push(rec);
    if (opts.message ?? true) this.msg('tool', '', { tool_call_id: id, tool_name: name });
  }

  /** compaction.py `build_compaction` + `persist_compaction`; the marker follows unless `marker: false`. */
  compact(
    id: string,
    strategy: string,
    reason: string,
    phase: string,
    handoff: string,
    opts: { usage?: Json; fallbackError?: Json; marker?: boolean } = {},
  ): void {
    const start = this.messages.findLastIndex((m) => (m.meta as Json | undefined)?.kind === 'compact_boundary') + 1;
    const rec: Json = {
      id,
      created_at: this.tick(),
      strategy,
      reason,
      phase,
      policy_version: 'compact_boundary_v3',
      source: {
        message_start_index: start,
        message_end_index_exclusive: this.messages.length,
        tool_call_ids: [],
        history_digest: `sha1-${id}`,
      },
      continuation_user_message: {
        role: 'user',
        content: 'Continue from the compacted conversation state. Use the compact handoff below as the source of prior context.',
      },
      handoff_message: { role: 'assistant', content: handoff },
      usage: opts.usage ?? {},
    };
    if (opts.fallbackError) rec.fallback_error = opts.fallbackError;
    this.compactions.push(rec);
    if (opts.marker ?? true) this.marker(id);
  }

  marker(compactId: string): void {
    this.msg('assistant', '', { meta: { kind: 'compact_boundary', compact_id: compactId } });
  }

  save(dir: string, meta: Json | null): void {
    const base = join(ROOT, 'fixtures', 'rind', dir);
    rmSync(base, { recursive: true, force: true });
    if (meta) write(join(base, 'meta.json'), JSON.stringify(meta, null, 2) + '\n');
    write(join(base, 'messages.jsonl'), jsonl(this.messages));
    write(join(base, 'tool_calls.jsonl'), jsonl(this.tools));
    if (this.compactions.length > 0) write(join(base, 'compactions.jsonl'), jsonl(this.compactions));
  }
}

const usage = (input: number, cached: number, output: number, kind: string, updatedAt?: string): Json => {
  const u: Json = {
    sampling_kind: kind,
    input_tokens: input,
    cached_input_tokens: cached,
    cache_hit_rate: cached / input,
    output_tokens: output,
    reasoning_output_tokens: 0,
    total_tokens: input + output,
    context_window_tokens: 200000,
    context_usage_percent: input / 200000,
  };
  if (updatedAt !== undefined) u.updated_at = updatedAt;
  return u;
};

/**
 * `npm test` in the fixture's repository, run with TZ set: every file passes. Two runs of it are
 * the long tool result of the fixture (over 2,000 characters: the in-memory view keeps a
 * preview, and the full text is re-read from tool_calls.jsonl).
 */
function npmTestRun(tz: string): string {
  const files: [string, number, number][] = [
    ['test/date.test.ts', 12, 9],
    ['test/format.test.ts', 14, 12],
    ['test/locale.test.ts', 8, 6],
    ['test/range.test.ts', 11, 10],
    ['test/week.test.ts', 7, 5],
    ['test/month.test.ts', 9, 7],
    ['test/duration.test.ts', 10, 8],
    ['test/relative.test.ts', 13, 11],
    ['test/calendar.test.ts', 6, 9],
    ['test/holiday.test.ts', 5, 4],
    ['test/iso.test.ts', 7, 6],
    ['test/parse.test.ts', 9, 8],
    ['test/quarter.test.ts', 6, 4],
    ['test/weekday.test.ts', 8, 5],
    ['test/leap.test.ts', 5, 3],
    ['test/epoch.test.ts', 4, 2],
    ['test/compare.test.ts', 9, 6],
    ['test/clamp.test.ts', 6, 3],
    ['test/interval.test.ts', 8, 5],
    ['test/timezone.test.ts', 7, 6],
    ['test/fiscal.test.ts', 5, 3],
    ['test/business-day.test.ts', 9, 7],
    ['test/ordinal.test.ts', 4, 2],
  ];
  const tests = files.reduce((n, [, t]) => n + t, 0);
  return [
    `$ TZ=${tz} npm test`,
    '',
    '> cal@1.4.0 test',
    '> vitest run',
    '',
    ' RUN  v1.6.0 /home/ada/cal',
    '',
    ...files.map(([f, n, ms]) => ` ✓ ${f} (${n} tests) ${ms}ms`),
    '',
    ` Test Files  ${files.length} passed (${files.length})`,
    `      Tests  ${tests} passed (${tests})`,
    '   Start at  10:16:21',
    '   Duration  1.38s (transform 305ms, setup 0ms, collect 398ms, tests 121ms, environment 0ms, prepare 611ms)',
    '',
  ].join('\n');
}

/** handoff.py `_excerpt`: texts over 1,200 characters keep their head and tail. */
function excerpt(text: string, max = 1200): string {
  if (text.length <= max) return text;
  const half = Math.max(1, Math.floor((max - 42) / 2));
  return `${text.slice(0, half).trimEnd()}\n[excerpt_truncated]\n${text.slice(-half).trimStart()}`;
}

/** handoff.py `CompactionHandoffBuilder.render` (Rind @ dfe87c5): the text of a deterministic handoff. */
function deterministicHandoff(previous: string, lastUser: string, lastAssistant: string, toolLines: string[]): string {
  const lines = ['Context compacted.', 'This is a deterministic handoff generated from persisted session events.'];
  if (previous) lines.push('', 'Previous compact handoff:', excerpt(previous));
  if (lastUser) lines.push('', 'Latest user message:', excerpt(lastUser));
  if (lastAssistant) lines.push('', 'Latest assistant message:', excerpt(lastAssistant));
  if (toolLines.length > 0) lines.push('', 'Tool calls:', ...toolLines);
  return lines.join('\n');
}

const PR_REQUEST =
  'Good. Before I merge: write me a short PR description — what was wrong, what changed in each file, and how you checked it. ' +
  'Say explicitly that test/date.test.ts is unchanged; the reviewers will ask, because the first thing anyone suspects is that we bent the test to fit.';

/** The last assistant message before the manual compaction: over 1,200 characters, so the handoff quotes an excerpt of it. */
const PR_DESCRIPTION = [
  'Both functions now use UTC. Here is a PR description:',
  '',
  '### Dates shift by one day outside UTC',
  '',
  '**What was wrong.** `formatDate` read the year, month and day of a `Date` with the local getters',
  '(`getFullYear`, `getMonth`, `getDate`), and `parseDate` built its result with the local constructor',
  '`new Date(y, m - 1, d)`. Both are fine as long as the machine runs in UTC. CI does; our laptops run',
  'in Europe/Rome, one hour east in winter and two in summer, so midnight moved into the previous day',
  'and the day in the output was off by one.',
  '',
  '**What changed.**',
  '- `src/date.ts`: `formatDate` uses `getUTCFullYear`, `getUTCMonth` and `getUTCDate`; padding unchanged.',
  '- `src/parse.ts`: `parseDate` builds its result with `new Date(Date.UTC(y, m - 1, d))`.',
  '- No new dependency, no change to any public signature.',
  '',
  '**How it was checked.** The whole suite (182 tests in 23 files) passes with `TZ=UTC` and with',
  '`TZ=Europe/Rome`, which is exactly the pair that disagreed before. The tz-check skill found no other',
  'local-time constructor or getter in src/.',
  '',
  '**Not changed.** `test/date.test.ts` is untouched: the expectation `2026-01-01` was right all along;',
  'the code was wrong. `test/parse.test.ts` is untouched too.',
  '',
  '**Follow-up.** Pin `TZ=UTC` in the `test` script so that local runs match CI by default, and add a',
  'CI job that runs the suite in a timezone west of UTC (America/Los_Angeles) to catch the opposite shift.',
].join('\n');

/**
 * A session with every record kind: system/user/assistant/tool messages, reasoning, parallel
 * tool calls whose result messages arrive out of order, a failed tool, a skill prompt and its
 * snapshot, a message of a role Rind does not send, and four compaction records: llm_inline
 * (auto), deterministic_fallback (after a context-length error), one record whose marker was
 * never written, and manual_deterministic; plus a marker whose record was never written. Two
 * texts are over 2,000 characters: a tool result (call_06) and the manual handoff (k4). Both sit
 * after k2, whose size findings (a fallback handoff not smaller than what it replaced) they must
 * not change.
 */
function rindCompaction(): void {
  const s = new RindSession('2026-05-14T10:15:00.000Z');
  s.msg('system', 'You are Rind, a coding agent. Work in /home/ada/cal.');
  s.msg('user', 'The test `formatDate` fails on CI only. Find out why.');
  s.calls(
    '',
    [
      ['call_01', 'read_file', { path: 'test/date.test.ts' }],
      ['call_02', 'run_shell', { cmd: 'echo $TZ' }],
    ],
    'Read the test and check the CI timezone.',
  );
  // Both tools ran; their result messages were persisted in completion order (call_02 first).
  s.tool('call_01', 'read_file', { path: 'test/date.test.ts' }, "expect(formatDate(new Date(2026, 0, 1))).toBe('2026-01-01')", {
    message: false,
  });
  s.tool('call_02', 'run_shell', { cmd: 'echo $TZ' }, 'Europe/Rome');
  s.msg('tool', '', { tool_call_id: 'call_01', tool_name: 'read_file' });
  s.msg('assistant', 'The test builds a local date; CI runs in UTC, so the day shifts.', {
    reasoning_content: 'new Date(y, m, d) is local time.',
  });
  s.msg('user', "Fix it without changing the test's expectations.");
  s.calls('', [['call_03', 'apply_patch', { file: 'src/date.ts', patch: 'use getUTC*()' }]]);
  s.tool('call_03', 'apply_patch', { file: 'src/date.ts', patch: 'use getUTC*()' }, 'patched src/date.ts (3 lines)');
  s.compact(
    'k1',
    'llm_inline',
    'auto',
    'mid_turn',
    '## Objective\nMake `formatDate` pass on CI (UTC) without changing the test.\n## Done\n- src/date.ts now uses getUTC*().\n## Next\n- Run the tests.',
    { usage: usage(182_400, 120_000, 310, 'compact') },
  );
  s.calls('Running the tests.', [['call_04', 'run_shell', { cmd: 'npm test' }]]);
  s.tool('call_04', 'run_shell', { cmd: 'npm test' }, '1 failing: parseDate returns the previous day', {
    ok: false,
    errorType: 'exit_code',
  });
  s.msg('user', '/tz-check parseDate', { meta: { kind: 'user_prompt', skill_invocations: [{ name: 'tz-check', syntax: 'slash' }] } });
  s.msg('user', 'Skill tz-check: list every Date constructor and getter; local-time ones are bugs on CI.', {
    meta: { kind: 'skill_snapshot', name: 'tz-check', scope: 'project', path: '.rind/skills/tz-check.md', syntax: 'slash' },
  });
  // The next request overflowed the window; the summarizer then returned nothing usable, so the
  // handoff was built deterministically (handoff.py `render`).
  const k2Handoff =
    'Context compacted.\nThis is a deterministic handoff generated from persisted session events.\n\nPrevious compact handoff:\n## Objective\nMake `formatDate` pass on CI (UTC) without changing the test.\n\nLatest user message:\nSkill tz-check: list every Date constructor and getter; local-time ones are bugs on CI.\n\nLatest assistant message:\nRunning the tests.\n\nTool calls:\n- call_04: run_shell, ok=False, error_type=exit_code';
  s.compact('k2', 'deterministic_fallback', 'context_length_error', 'mid_turn', k2Handoff, {
    fallbackError: { type: 'ValueError', message: 'compact model returned empty handoff' },
  });
  // Two calls of one message, run in order; the second is the long tool result (the suite in UTC
  // and in Europe/Rome).
  const both = 'TZ=UTC npm test; TZ=Europe/Rome npm test';
  s.calls('parseDate has the same bug; fixing it the same way, then running the suite in both timezones.', [
    ['call_05', 'apply_patch', { file: 'src/parse.ts', patch: 'Date.UTC(...)' }],
    ['call_06', 'run_shell', { cmd: both }],
  ]);
  s.tool('call_05', 'apply_patch', { file: 'src/parse.ts', patch: 'Date.UTC(...)' }, 'patched src/parse.ts (1 line)');
  s.tool('call_06', 'run_shell', { cmd: both }, `${npmTestRun('UTC')}\n${npmTestRun('Europe/Rome')}`);
  // A compaction record whose marker was never written (Rind stopped between the two appends).
  s.compact('k3', 'llm_inline', 'auto', 'pre_turn', '## Objective\nUTC everywhere.\n(never committed)', {
    usage: usage(150_000, 0, 90, 'compact'),
    marker: false,
  });
  s.msg('user', PR_REQUEST);
  s.msg('assistant', PR_DESCRIPTION);
  s.msg('developer', 'A role Rind does not send.');
  // A marker whose record is missing.
  s.marker('k9');
  // The long handoff: rendered from the view as it stands (compaction.py `build_compaction`), with
  // k2's handoff as the previous one (assumed: the latest pair Rind applies) and the latest user and
  // assistant messages (the PR description, excerpted).
  s.compact(
    'k4',
    'manual_deterministic',
    'manual',
    'manual',
    deterministicHandoff(k2Handoff, PR_REQUEST, PR_DESCRIPTION, ['- call_05: apply_patch, ok=True', '- call_06: run_shell, ok=True']),
  );
  s.msg('user', 'Thanks. Anything else?');
  const before = s.tick(2);
  s.msg('assistant', 'No: the suite is green in UTC and in Europe/Rome.');
  const k4 = s.compactions.at(-1) as Json;
  s.save('20260514_101500_a1b2c3d4', {
    schema_version: '2.0',
    session_id: '20260514_101500_a1b2c3d4',
    title: 'The test `formatDate` fails on CI',
    created_at: '2026-05-14T10:15:00.000000+00:00',
    updated_at: s.tick(1),
    model: 'gpt-4.1',
    cwd: '/home/ada/cal',
    workspace_root: '/home/ada/cal',
    message_count: s.messages.length,
    tool_call_count: s.tools.length,
    auto_compact_window: { ordinal: 4 },
    latest_compaction: {
      id: k4.id,
      created_at: k4.created_at,
      policy_version: k4.policy_version,
      source: {
        message_start_index: (k4.source as Json).message_start_index,
        message_end_index_exclusive: (k4.source as Json).message_end_index_exclusive,
      },
    },
    latest_sampling_usage: usage(4_210, 3_900, 18, 'assistant', before),
    latest_assistant_sampling_usage: usage(4_210, 3_900, 18, 'assistant', before),
  });
}

/** Bad input: no meta.json, missing and duplicate tool records, orphan and unanswered calls, broken compaction records. */
function rindBadInput(): void {
  const s = new RindSession('2026-05-14T12:00:00.000Z');
  s.msg('system', 'You are Rind.');
  s.msg('user', 'List the files.');
  s.calls('', [
    ['x1', 'run_shell', { cmd: 'ls' }],
    ['x2', 'run_shell', { cmd: 'ls -a' }],
  ]);
  s.tool('x1', 'run_shell', { cmd: 'ls' }, 'a.txt\nb.txt');
  // x2 was interrupted: neither a record nor a result message.
  s.tool('x1', 'run_shell', { cmd: 'ls' }, 'a.txt\nb.txt\nc.txt', { message: false }); // a second record for x1
  s.msg('user', 'And the sizes?');
  s.calls('', [['x3', 'run_shell', { cmd: 'du -sh *' }]]);
  s.tool('x3', 'run_shell', { cmd: 'du -sh *' }, null); // a record without model_content
  s.msg('tool', '', { tool_call_id: 'x8', tool_name: 'run_shell' }); // no record, never called
  s.tools.push({ id: 'x9', name: 'run_shell', raw_args: '{}', model_content: 'orphan output', ok: true });
  s.msg('tool', '', { tool_call_id: 'x9', tool_name: 'run_shell' }); // a record, but no call issued it
  s.messages.push({ id: 'm99', ts: s.tick(), content: 'no role' });
  s.tools.push({ name: 'no id' });
  s.compactions.push({
    id: 'kx',
    created_at: s.tick(),
    strategy: 'llm_inline',
    reason: 'auto',
    phase: 'mid_turn',
    handoff_message: { role: 'assistant' },
  });
  s.marker('kx');
  s.compactions.push({ strategy: 'llm_inline' });
  s.msg('assistant', 'Done.');
  s.save('20260514_120000_deadbeef', null);
}

// =============================================================================================
// cosh (DiegoZaluski/co-sh): one JSONL of HistoryEvents per root session
// =============================================================================================

class CoshLog {
  readonly lines: Json[] = [];
  private next = 1;

  /** `HistoryEvent {schema_version: 1, event_id, branch_id, delta}`; returns the event id. */
  ev(branch: string, delta: Json): number {
    const id = this.next++;
    this.lines.push({ schema_version: 1, event_id: id, branch_id: branch, delta });
    return id;
  }

  raw(line: Json): void {
    this.lines.push(line);
  }

  skipIds(n: number): void {
    this.next += n;
  }

  get lastId(): number {
    return this.next - 1;
  }

  ctx(branch: string, change: Json): number {
    return this.ev(branch, { type: 'context', change });
  }

  item(branch: string, item: Json): number {
    return this.ctx(branch, { field: 'item_upsert', item });
  }

  message(branch: string, id: string, role: 'user' | 'assistant', text: string, ids: number[]): number {
    return this.ev(branch, {
      type: 'message',
      change: {
        operation: 'upsert',
        message: { id, role, parts: [{ type: 'Text', text, synthetic: false }], created_at: 1778000000, agent: null, model: null },
        context_item_ids: ids,
      },
    });
  }

  boundary(branch: string, id: string, first: number, last: number): number {
    return this.ctx(branch, { field: 'message_boundary', message_id: id, boundary: { first_group: first, last_group: last } });
  }

  save(name: string): void {
    write(join(ROOT, 'fixtures', 'cosh', name), jsonl(this.lines));
  }
}

// ContextItem is externally tagged (no serde attribute on the enum).
const User = (id: number, original: string): Json => ({ User: { id, original } });
const Assistant = (id: number, original: string, closable: boolean): Json => ({ Assistant: { id, original, closable } });
const ToolCall = (id: number, call_id: string, name: string, args: Json, thinking: string[] = []): Json => ({
  ToolCall: {
    id,
    call_id,
    name,
    arguments: JSON.stringify(args),
    thought_signature: '',
    thinking_blocks: thinking.map((t) => ({ thinking: t, signature: `sig-${id}` })),
  },
});
const ToolResult = (id: number, call_id: string, content: string, useless = false): Json => ({
  ToolResult: { id, call_id, content, useless },
});
const Closure = (id: number, content: string): Json => ({ Closure: { id, content } });
const Compaction = (id: number, summary: string, covered: [number, number][]): Json => ({
  Compaction: { id, summary, covered_ranges: covered.map(([start_id, end_id]) => ({ start_id, end_id })) },
});
const ErrorItem = (id: number, content: string): Json => ({ Error: { id, content } });
const UserCommand = (id: number, content: string): Json => ({ UserCommand: { id, content } });

const meta = (session_id: string, title: string): Json => ({
  session_id,
  title,
  title_generated: false,
  created_at: 1778000000,
  cwd: '/home/bo/net',
  provider: 'anthropic',
  model: 'claude-sonnet-4-5',
  reasoning: null,
});
// TodoList {groups: [TaskGroup {title, items: [TodoItem {id, description, status, depends_on}], tests_verified}]}:
// the indexed types.rs has no serde derive on TodoList yet; serde's defaults are assumed (unverified).
const plan = (tasks: [string, string, string][]): Json => ({
  groups: [
    {
      title: 'Retries',
      items: tasks.map(([id, description, status]) => ({ id, description, status, depends_on: [] })),
      tests_verified: false,
    },
  ],
});
const at = (branch: string, event: number): Json => ({ branch_id: branch, event_id: event, selection: { kind: 'at_event' } });

const TEST_OUTPUT =
  Array.from({ length: 40 }, (_, i) => `✓ fetchJson retries case ${i + 1} (${3 + (i % 7)} ms)`).join('\n') +
  '\n✗ fetchJson gives up after the 4th timeout\n41 tests, 1 failed';

/**
 * The main history: genesis, a first save (initialize + items + plan), tool work, a model-driven
 * mask (moved right after its mask_tool_result call), a Closure, a useless chain hidden, a
 * checkpoint with covered_ranges composed before the raw tail, a fork by message, a revert and
 * the rollback that undoes it, display-only items, an item removal, metadata changes, a
 * snapshot marker and a tombstone.
 */
function coshMain(): void {
  const R = 'ses_7f3a';
  const F = 'ses_9c1e';
  const c = new CoshLog();
  c.ev(R, { type: 'genesis', metadata: meta(R, 'Add retries') });
  // Save 1 — the first save writes Initialize (with the plan bound after item 4), then every item.
  c.message(R, 'm1', 'user', 'Add retries with exponential backoff to fetchJson.', [1]);
  c.message(R, 'm2', 'assistant', 'fs_read src/http.ts', [2, 3]);
  c.message(R, 'm3', 'assistant', "I'll wrap fetch in a retry loop.", [4]);
  c.ctx(R, {
    field: 'initialize',
    next_id: 5,
    max_tokens: 12000,
    overflow_model: null,
    split: null,
    map_reduce: null,
    visible_from: null,
    hidden: [],
    masked: [],
    todo: plan([
      ['t1', 'Add backoff to fetchJson', 'InProgress'],
      ['t2', 'Cover timeouts in tests', 'Pending'],
    ]),
    todo_after_item_id: 4,
    last_tool_set: ['bash_run', 'fs_read', 'fs_write', 'grep', 'mask_tool_result', 'plan_todo_write'],
  });
  c.item(R, User(1, 'Add retries with exponential backoff to fetchJson.'));
  c.item(R, ToolCall(2, 'tc1', 'fs_read', { path: 'src/http.ts' }, ['Read the client first.']));
  c.item(
    R,
    ToolResult(3, 'tc1', 'export async function fetchJson(url: string) {\n  const res = await fetch(url);\n  return res.json();\n}'),
  );
  c.item(R, Assistant(4, "I'll wrap fetch in a retry loop.", false));
  c.boundary(R, 'm1', 1, 1);
  c.boundary(R, 'm2', 2, 2);
  c.boundary(R, 'm3', 4, 4);
  // Save 2 — tests, a masking call on the long output, a fix; the plan advances.
  c.message(R, 'm4', 'assistant', 'bash_run npm test', [5, 6]);
  c.message(R, 'm5', 'assistant', 'mask_tool_result', [7, 8]);
  c.message(R, 'm6', 'assistant', 'Tests pass except one timeout case; adjusting.', [9]);
  c.message(R, 'm7', 'assistant', 'fs_write src/http.ts', [10, 11]);
  c.item(R, ToolCall(5, 'tc2', 'bash_run', { cmd: 'npm test' }));
  c.item(R, ToolResult(6, 'tc2', TEST_OUTPUT));
  c.item(R, ToolCall(7, 'tc3', 'mask_tool_result', {}));
  c.item(R, ToolResult(8, 'tc3', 'Masked context item #6.', true));
  c.item(R, Assistant(9, 'Tests pass except one timeout case; adjusting.', false));
  c.item(R, ToolCall(10, 'tc4', 'fs_write', { path: 'src/http.ts', content: 'for (let i = 0; i < 4; i++) { … }' }));
  c.item(R, ToolResult(11, 'tc4', 'wrote src/http.ts (18 lines)'));
  c.ctx(R, {
    field: 'todo',
    value: plan([
      ['t1', 'Add backoff to fetchJson', 'Completed'],
      ['t2', 'Cover timeouts in tests', 'InProgress'],
    ]),
    after_item_id: 11,
  });
  c.ctx(R, { field: 'next_id', value: 12 });
  c.ctx(R, { field: 'masked', item_ids: [6], masked: true });
  c.boundary(R, 'm4', 5, 5);
  c.boundary(R, 'm5', 7, 7);
  c.boundary(R, 'm6', 9, 9);
  c.boundary(R, 'm7', 10, 10);
  // Save 3 — a useless search chain, the closing answer promoted to a Closure in place, the
  // mask call's own (useless) chain swept.
  c.message(R, 'm8', 'assistant', 'grep retryAfter', [12, 13]);
  c.message(R, 'm9', 'assistant', 'Done: fetchJson retries 4 times with backoff.', [14]);
  c.item(R, ToolCall(12, 'tc5', 'grep', { q: 'retryAfter' }));
  c.item(R, ToolResult(13, 'tc5', 'no matches', true));
  c.item(R, Assistant(14, 'Done: fetchJson retries 4 times with backoff.', true));
  c.item(R, Closure(14, 'Done: fetchJson retries 4 times with backoff.'));
  c.ctx(R, { field: 'next_id', value: 15 });
  c.ctx(R, { field: 'hidden', item_ids: [7, 8], hidden: true });
  c.boundary(R, 'm8', 12, 12);
  c.boundary(R, 'm9', 14, 14);
  // Save 4 — a new prompt, a read, then the checkpoint: it covers the visible old prefix
  // (1–6 and 9–14; 7 and 8 were hidden) and keeps the recent raw tail 15–17. Committing it
  // unmasks the covered result.
  c.message(R, 'm10', 'user', 'Also log each retry.', [15]);
  c.message(R, 'm11', 'assistant', 'fs_read src/log.ts', [16, 17]);
  c.message(R, 'm12', 'assistant', 'Compaction', [18]);
  c.item(R, User(15, 'Also log each retry.'));
  c.item(R, ToolCall(16, 'tc6', 'fs_read', { path: 'src/log.ts' }));
  c.item(R, ToolResult(17, 'tc6', 'export const log = (msg: string) => console.error(`[net] ${msg}`);'));
  c.item(
    R,
    Compaction(
      18,
      '## Objective\nfetchJson retries with exponential backoff (4 attempts).\n## Done\n- Retry loop in src/http.ts; tests green except the timeout case, now fixed.\n## Next\n- Log each retry with `log` from src/log.ts.',
      [
        [1, 6],
        [9, 14],
      ],
    ),
  );
  c.ctx(R, { field: 'next_id', value: 19 });
  c.ctx(R, { field: 'masked', item_ids: [6], masked: false });
  c.boundary(R, 'm10', 15, 15);
  c.boundary(R, 'm11', 16, 16);
  c.boundary(R, 'm12', 18, 18);
  // Save 5 — work after the checkpoint; the plan ends completed (persisted, no longer displayed by cosh).
  c.message(R, 'm13', 'assistant', 'fs_write src/http.ts', [19, 20]);
  c.message(R, 'm14', 'assistant', 'Each retry is now logged.', [21]);
  c.item(R, ToolCall(19, 'tc7', 'fs_write', { path: 'src/http.ts', content: 'log(`retry ${i}`)' }));
  c.item(R, ToolResult(20, 'tc7', 'wrote src/http.ts (19 lines)'));
  c.item(R, Assistant(21, 'Each retry is now logged.', true));
  c.ctx(R, {
    field: 'todo',
    value: plan([
      ['t1', 'Add backoff to fetchJson', 'Completed'],
      ['t2', 'Cover timeouts in tests', 'Completed'],
      ['t3', 'Log each retry', 'Completed'],
    ]),
    after_item_id: 21,
  });
  c.ctx(R, { field: 'next_id', value: 22 });
  c.boundary(R, 'm13', 19, 19);
  const head = c.boundary(R, 'm14', 21, 21);
  // Fork through message m11: the child keeps items 1–17 (the checkpoint 18 and the later work
  // are not in it, so the raw history it covered is visible again) and the plan bound at or
  // before item 17.
  c.ev(F, {
    type: 'fork',
    parent: { branch_id: R, event_id: head, selection: { kind: 'through_message', message_id: 'm11' } },
    metadata: { ...meta(F, 'Add retries (jitter)') },
  });
  c.message(F, 'm15', 'user', 'Use full jitter instead.', [22]);
  c.message(F, 'm16', 'assistant', 'fs_write src/http.ts', [23, 24]);
  c.item(F, User(22, 'Use full jitter instead.'));
  c.item(F, ToolCall(23, 'tc8', 'fs_write', { path: 'src/http.ts', content: 'Math.random() * base * 2 ** i' }));
  c.item(F, ToolResult(24, 'tc8', 'wrote src/http.ts (19 lines)'));
  c.ctx(F, { field: 'next_id', value: 25 });
  c.boundary(F, 'm15', 22, 22);
  c.boundary(F, 'm16', 23, 23);
  // Revert on the root: the user undoes everything from message m13 on (the checkpoint stays).
  c.ev(R, {
    type: 'revert',
    target: { branch_id: R, event_id: head, selection: { kind: 'before_message', message_id: 'm13' } },
    undo_label: 'v1',
    prompt_preview: 'Also log each retry.',
  });
  c.message(R, 'm13b', 'user', 'Log only the final failure.', [22]);
  c.message(R, 'm14b', 'assistant', 'Done.', [23]);
  c.item(R, User(22, 'Log only the final failure.'));
  c.item(R, Assistant(23, 'Done: only the final failure is logged.', true));
  c.ctx(R, { field: 'next_id', value: 24 });
  c.boundary(R, 'm13b', 22, 22);
  c.boundary(R, 'm14b', 23, 23);
  // Rollback v1: back to the exact head the revert abandoned, plan included.
  c.ev(R, { type: 'rollback', target: at(R, head), undo_label: 'v1' });
  c.message(R, 'm15b', 'user', 'Ship it.', [22]);
  c.message(R, 'm16b', 'assistant', 'Shipped.', [23]);
  c.item(R, User(22, 'Ship it.'));
  c.item(R, Assistant(23, 'Shipped: retries with backoff, each retry logged.', true));
  c.item(R, UserCommand(24, 'git push'));
  c.item(R, ErrorItem(25, 'API error: overloaded_error'));
  c.ctx(R, { field: 'next_id', value: 26 });
  c.ctx(R, { field: 'hidden', item_ids: [24], hidden: true });
  c.boundary(R, 'm15b', 22, 22);
  c.boundary(R, 'm16b', 23, 23);
  // The error line is withdrawn (display state), the title and model change, a named snapshot.
  c.ev(R, { type: 'message', change: { operation: 'remove', message_id: 'm16b' } });
  c.ctx(R, { field: 'item_remove', item_id: 25 });
  c.ev(R, { type: 'metadata', change: { field: 'title', title: 'Retries with backoff', title_generated: true } });
  c.ev(R, { type: 'metadata', change: { field: 'model', provider: 'anthropic', model: 'claude-opus-4-1', reasoning: 'high' } });
  c.ctx(R, { field: 'max_tokens', value: 16000 });
  c.ctx(R, { field: 'overflow_model', value: null });
  c.ctx(R, { field: 'last_tool_set', value: ['bash_run', 'fs_read', 'fs_write', 'grep', 'mask_tool_result'] });
  c.ev(R, { type: 'snapshot', name: 'shipped', target: at(R, c.lastId) });
  c.message(R, 'm17', 'user', 'Thanks!', [26]);
  c.item(R, User(26, 'Thanks!'));
  c.item(R, Assistant(27, 'You are welcome.', true));
  c.ctx(R, { field: 'next_id', value: 28 });
  c.ev(F, { type: 'tombstone' });
  c.save(`session-${R}.jsonl`);
}

/**
 * MapReduce and the legacy split: an unversioned split buffer (two chunk summaries) committed as
 * a legacy checkpoint with visible_from; a version-1 byte-sliced staging rebuilt as version 3
 * (whole-item segments, source fingerprints), maps accepted out of order, one repartition,
 * reduction and audit, then the checkpoint; a version-2 staging discarded.
 */
function coshMapReduce(): void {
  const R = 'ses_mr01';
  const c = new CoshLog();
  c.ev(R, { type: 'genesis', metadata: meta(R, 'Port the parser') });
  c.ctx(R, {
    field: 'initialize',
    next_id: 1,
    max_tokens: 8000,
    overflow_model: null,
    split: { buffer: '', cursor: null, continuity: '', window: 8000, buffer_tokens: 0 },
    map_reduce: null,
    visible_from: null,
    hidden: [],
    masked: [],
    todo: null,
    todo_after_item_id: null,
    last_tool_set: null,
  });
  c.item(R, User(1, 'Port the parser to the new AST.'));
  c.item(R, ToolCall(2, 'p1', 'fs_read', { path: 'src/parser.rs' }));
  c.item(R, ToolResult(3, 'p1', 'pub fn parse(src: &str) -> Ast { … 900 lines … }'));
  c.item(R, Assistant(4, 'The parser builds the old AST in 40 places.', false));
  c.ctx(R, { field: 'next_id', value: 5 });
  c.ctx(R, {
    field: 'split_buffer_append',
    appended: 'Chunk 1: the user wants the parser ported; parse() builds the old AST.',
    cursor: 3,
    continuity: 'parse() builds the old AST.',
    buffer_tokens: 18,
  });
  c.ctx(R, {
    field: 'split_buffer_append',
    appended: '\nChunk 2: 40 construction sites need the new node types.',
    cursor: 5,
    continuity: '40 construction sites',
    buffer_tokens: 31,
  });
  // The legacy commit: one checkpoint without ranges; visible_from hides what it folded.
  c.item(
    R,
    Compaction(
      5,
      'Chunk 1: the user wants the parser ported; parse() builds the old AST.\nChunk 2: 40 construction sites need the new node types.',
      [],
    ),
  );
  c.ctx(R, { field: 'next_id', value: 6 });
  c.ctx(R, { field: 'split', value: null });
  c.ctx(R, { field: 'visible_from', value: 5 });
  c.item(R, User(6, 'Go on with the expressions.'));
  c.item(R, ToolCall(7, 'p2', 'fs_read', { path: 'src/expr.rs' }));
  c.item(R, ToolResult(8, 'p2', 'fn expr(&mut self) -> Node { … }'));
  c.item(R, Assistant(9, 'Expressions use Node; switching to Expr.', false));
  c.ctx(R, { field: 'next_id', value: 10 });
  c.ctx(R, { field: 'max_tokens', value: 6000 });
  // Version-1 segments are byte-sliced (`slices`, map_reduce.rs @b76b19b2); version-3 segments list
  // whole items (`item_ids`), as docs/context-compaction.md describes them (field name unverified).
  const seg = (ordinal: number, ids: number[], summary: string | null, slices = false): Json => ({
    ordinal,
    covered_ranges: [{ start_id: ids[0], end_id: ids[ids.length - 1] }],
    summary,
    ...(slices ? { slices: ids.map((item_id) => ({ item_id, start_byte: 0, end_byte: 100 })) } : { item_ids: ids, slices: [] }),
  });
  const state = (version: number, segments: Json[], extra: Json = {}): Json => ({
    version,
    window: 6000,
    model: null,
    source_item_ids: [5, 6, 7, 8, 9],
    source_fingerprints:
      version >= 3
        ? [
            [5, 11],
            [6, 12],
            [7, 13],
            [8, 14],
            [9, 15],
          ]
        : [],
    segments,
    phase: 'mapping',
    level: 0,
    nodes: [],
    next_nodes: [],
    reduce_cursor: 0,
    candidate: null,
    validation_cursor: 0,
    audits: [],
    final_summary: null,
    parallel_disabled: false,
    repartitions: 0,
    corrections: 0,
    ...extra,
  });
  // A version-1 staging (byte slices) from an older build, with one map accepted …
  c.ctx(R, { field: 'map_reduce', value: state(1, [seg(0, [5, 6], 'old map 0', true), seg(1, [7, 8, 9], null, true)]) });
  c.ctx(R, { field: 'overflow_model', value: 'claude-sonnet-4-5' });
  // … invalidated and rebuilt from source as version 3: whole-item segments, fingerprints.
  c.ctx(R, { field: 'map_reduce', value: state(3, [seg(0, [5, 6], null), seg(1, [7, 8, 9], null)]) });
  c.ctx(R, { field: 'map_segment_accepted', ordinal: 1, summary: 'Map 1: expressions still build Node; switching to Expr.' });
  c.ctx(R, {
    field: 'map_reduce',
    value: state(3, [seg(1, [7, 8, 9], 'Map 1: expressions still build Node; switching to Expr.'), seg(2, [5], null), seg(3, [6], null)], {
      repartitions: 1,
      window: 4500,
    }),
  });
  c.ctx(R, { field: 'map_segment_accepted', ordinal: 3, summary: 'Map 3: the user asked to go on with expressions.' });
  c.ctx(R, { field: 'map_segment_accepted', ordinal: 2, summary: 'Map 2: earlier chunks: port parse() to the new AST, 40 sites.' });
  c.ctx(R, {
    field: 'map_reduce',
    value: state(
      3,
      [
        seg(1, [7, 8, 9], 'Map 1: expressions still build Node; switching to Expr.'),
        seg(2, [5], 'Map 2: earlier chunks: port parse() to the new AST, 40 sites.'),
        seg(3, [6], 'Map 3: the user asked to go on with expressions.'),
      ],
      {
        repartitions: 1,
        window: 4500,
        phase: 'validating',
        level: 1,
        candidate: '## Objective\nPort the parser to the new AST.\n## State\n- parse() done; expressions in progress (Node → Expr).',
        audits: ['PASS'],
      },
    ),
  });
  c.ctx(R, { field: 'overflow_model', value: null });
  c.item(
    R,
    Compaction(10, '## Objective\nPort the parser to the new AST.\n## State\n- parse() done; expressions in progress (Node → Expr).', [
      [5, 9],
    ]),
  );
  c.ctx(R, { field: 'next_id', value: 11 });
  c.ctx(R, { field: 'map_reduce', value: null });
  c.item(R, User(11, 'Continue.'));
  c.item(R, Assistant(12, 'Continuing with statements.', true));
  c.ctx(R, { field: 'next_id', value: 13 });
  // A version-2 staging (no completion checks) that is then discarded.
  c.ctx(R, { field: 'map_reduce', value: { ...state(2, [seg(0, [10, 11, 12], 'unchecked map')]), source_item_ids: [10, 11, 12] } });
  c.ctx(R, { field: 'map_reduce', value: null });
  c.save(`session-${R}.jsonl`);
}

/** Bad input: unknown delta/field/variant, non-monotonic ids, missing branch, bad references, corrupt and legacy lines. */
function coshBadInput(): void {
  const R = 'ses_bad0';
  const S = 'ses_side';
  const c = new CoshLog();
  c.ev(R, { type: 'genesis', metadata: meta(R, 'Bad input') });
  c.ctx(R, {
    field: 'initialize',
    next_id: 1,
    max_tokens: 8000,
    overflow_model: null,
    split: null,
    map_reduce: null,
    visible_from: null,
    hidden: [],
    masked: [],
    todo: { groups: 'not a list' },
    todo_after_item_id: 0,
    last_tool_set: null,
  });
  c.message(R, 'm1', 'user', 'hello', [1]);
  c.item(R, User(1, 'hello'));
  c.ev(R, { type: 'hologram', payload: {} });
  c.ctx(R, { field: 'prefetch', value: 3 });
  c.item(R, { Image: { id: 2, bytes: 10 } });
  c.raw({ schema_version: 1, event_id: 3, branch_id: R, delta: { type: 'context', change: { field: 'next_id', value: 9 } } });
  c.ev('ses_ghost', { type: 'context', change: { field: 'item_upsert', item: User(1, 'from nowhere') } });
  c.ev(S, { type: 'fork', parent: at(R, 999), metadata: meta(S, 'no parent') });
  c.ev(S, { type: 'fork', parent: at(R, 4), metadata: meta(S, 'side') });
  c.ev(S, { type: 'revert', target: at(R, 4), undo_label: 'v1', prompt_preview: '' });
  c.ev(R, {
    type: 'revert',
    target: { branch_id: R, event_id: 4, selection: { kind: 'before_message', message_id: 'm404' } },
    undo_label: 'v1',
    prompt_preview: '',
  });
  c.raw({ schema_version: 1, event_id: 'x', branch_id: R, delta: { type: 'tombstone' } });
  c.raw({ schema_version: 2, event_id: c.lastId + 1, branch_id: R, delta: { type: 'tombstone' } });
  c.skipIds(1);
  c.raw({ view_page: { branch: R, items: [] } });
  c.raw({ Message: { id: 'old', role: 'user', parts: [], created_at: 1, agent: null, model: null, ctx_ids: [] } });
  c.ctx(R, { field: 'hidden', item_ids: [77], hidden: true });
  c.item(R, Assistant(2, 'Hi.', true));
  c.save(`session-${R}.jsonl`);
}

// `npx tsx scripts/gen-rind-cosh-fixtures.ts rind` (or `cosh`) writes one harness's fixtures only.
const only = process.argv[2];
if (only !== undefined && only !== 'rind' && only !== 'cosh') throw new Error(`unknown fixture set ${only}: rind or cosh`);
if (only !== 'cosh') {
  rindCompaction();
  rindBadInput();
}
if (only !== 'rind') {
  coshMain();
  coshMapReduce();
  coshBadInput();
}
console.log(`${only === undefined ? 'fixtures/rind and fixtures/cosh' : `fixtures/${only}`} written`);
