/**
 * Writes the Palimpsest session format v1 fixtures under fixtures/palimpsest/ (docs/format.md).
 *
 *   npx tsx scripts/gen-fixtures.ts        (or: npm run gen:fixtures)
 *
 * This file is the source of truth of those fixtures: read it to see what each line means and
 * which seed it comes from. Output is deterministic (fixed clocks, no randomness); every event is
 * validated against the canonical schema before it is written. Texts are short; where a fixture
 * stands for a long session, its token counts are the ones a provider would report for the
 * full-size session and say so in fixtures/README.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Block, LeafBlock, ToolSchema } from '../src/shared/model/content';
import { CanonicalEvent, EVENT_KINDS, type CanonicalEventInput, type Finish, type Usage } from '../src/shared/model/event';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'fixtures', 'palimpsest');

type ItemInput = Extract<CanonicalEventInput, { kind: 'item' }>['item'];

// ---------------------------------------------------------------------------------------------
// A fixture: events in line order, each validated, with explicit seq (= line index) and an
// automatic clock.
// ---------------------------------------------------------------------------------------------

class Fixture {
  private readonly lines: Record<string, unknown>[] = [];
  private readonly created = new Map<string, number>();
  private t: number;
  private step = 2_000;
  branch: string | undefined;

  constructor(
    readonly file: string,
    private readonly opts: { seq: boolean; start: string; clock: 'iso' | 'ms' },
  ) {
    this.t = Date.parse(opts.start);
  }

  /** Let `seconds` pass before the next event. */
  wait(seconds: number): this {
    this.t += seconds * 1000;
    return this;
  }

  /** Append one canonical event; returns its seq (its line index). */
  add(e: CanonicalEventInput): number {
    const parsed = CanonicalEvent.safeParse(e);
    if (!parsed.success) throw new Error(`${this.file} line ${this.lines.length + 1}: ${parsed.error.message}`);
    if (e.kind === 'item' && e.op?.op !== 'extend' && !this.created.has(e.item.id)) this.created.set(e.item.id, this.lines.length);
    return this.push(e as unknown as Record<string, unknown>);
  }

  /** Append a line that is not a v1 event (an unknown kind): kept, never validated. */
  raw(e: Record<string, unknown>): number {
    if (typeof e.kind === 'string' && (EVENT_KINDS as readonly string[]).includes(e.kind))
      throw new Error(`raw() is for unknown kinds, not "${e.kind}"`);
    return this.push(e);
  }

  private push(e: Record<string, unknown>): number {
    const seq = this.lines.length;
    const { kind, seq: _seq, branch, at, ...rest } = e;
    this.t += this.step;
    const line: Record<string, unknown> = { kind };
    if (this.opts.seq) line.seq = seq;
    const b = branch ?? this.branch;
    if (b !== undefined) line.branch = b;
    line.at = at ?? (this.opts.clock === 'iso' ? new Date(this.t).toISOString() : this.t);
    Object.assign(line, rest);
    this.lines.push(line);
    return seq;
  }

  /** Seqs of the events that created these items. */
  seqOf(...ids: string[]): number[] {
    return ids.map((id) => {
      const s = this.created.get(id);
      if (s === undefined) throw new Error(`${this.file}: no item ${id}`);
      return s;
    });
  }

  write(): string {
    const path = join(OUT, this.file);
    writeFileSync(path, this.lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    return `${this.file}: ${this.lines.length} lines`;
  }
}

// ---------------------------------------------------------------------------------------------
// Small builders
// ---------------------------------------------------------------------------------------------

const text = (t: string): Block & LeafBlock => ({ type: 'text', text: t });
const reasoning = (t: string): Block => ({ type: 'reasoning', text: t });
const call = (id: string, name: string, args: unknown): Block => ({ type: 'tool_call', id, name, input: JSON.stringify(args) });
const result = (callId: string, t: string, isError?: boolean): Block =>
  isError ? { type: 'tool_result', callId, content: [text(t)], isError } : { type: 'tool_result', callId, content: [text(t)] };

const userItem = (id: string, t: string): ItemInput => ({ id, role: 'user', blocks: [text(t)] });
const assistantItem = (id: string, ...blocks: Block[]): ItemInput => ({ id, role: 'assistant', blocks });
const toolItem = (id: string, callId: string, t: string, isError?: boolean): ItemInput => ({
  id,
  role: 'tool',
  blocks: [result(callId, t, isError)],
});

const item = (i: ItemInput): CanonicalEventInput => ({ kind: 'item', item: i });

const STOP = (raw = 'end_turn'): Finish => ({ raw, reason: 'stop' });
const TOOL_USE = (raw = 'tool_use'): Finish => ({ raw, reason: 'tool_calls' });

/** Rough token count (4 characters a token) of blocks, used to keep reported usage consistent with the texts. */
function tokens(blocks: readonly Block[]): number {
  let chars = 0;
  for (const b of blocks) {
    if (b.type === 'text' || b.type === 'reasoning') chars += b.text.length;
    else if (b.type === 'tool_call') chars += b.name.length + b.input.length;
    else if (b.type === 'tool_result') for (const c of b.content) if (c.type === 'text') chars += c.text.length;
  }
  return Math.ceil(chars / 4) + 4 * blocks.length;
}

function schema(
  name: string,
  description: string,
  properties: Record<string, { type: string; description?: string }>,
  required: string[],
): ToolSchema {
  return { name, description, inputSchema: { type: 'object', properties, required } };
}

// ---------------------------------------------------------------------------------------------
// basic.jsonl — the sample session `npm start` opens: a small coding session with tool calls, a
// masked tool result (cosh) and one committed manual compaction (DeepSeek Harness bracket).
// ---------------------------------------------------------------------------------------------

function basic(): Fixture {
  const f = new Fixture('basic.jsonl', { seq: true, start: '2026-03-02T09:14:05.000Z', clock: 'iso' });
  const system = [
    text(
      'You are a coding agent working in the repository at /home/dev/shop-api (TypeScript, Node 20, vitest).\n' +
        'Read a file before you edit it. Keep the public API unchanged unless the user asks otherwise. Run the tests after every change.\n' +
        'When one of your tool results is no longer needed, call mask_tool_result with its call id: the model view keeps a short reference and the session log keeps the full result.',
    ),
  ];
  const tools = [
    schema('read_file', 'Read a UTF-8 file of the repository.', { path: { type: 'string' } }, ['path']),
    schema(
      'edit_file',
      'Replace one exact occurrence of `old` with `new` in a file.',
      { path: { type: 'string' }, old: { type: 'string' }, new: { type: 'string' } },
      ['path', 'old', 'new'],
    ),
    schema('run_tests', 'Run vitest, optionally only the tests whose name matches `filter`.', { filter: { type: 'string' } }, []),
    schema('mask_tool_result', 'Replace your newest tool result with a short reference to save context.', { call_id: { type: 'string' } }, [
      'call_id',
    ]),
  ];
  const agent = { provider: 'anthropic', model: 'claude-sonnet-4-5', window: 200_000, maxOutput: 8_192 };
  const summarizer = { provider: 'anthropic', model: 'claude-haiku-4-5', window: 200_000, maxOutput: 8_192 };

  // Prompt size bookkeeping, so that reported usage matches the texts (Anthropic counting: `input`
  // excludes cache reads and writes).
  const prefix = tokens(system) + tokens(tools.map((t) => text(JSON.stringify(t)))) + 346; // + the provider's tool-use preamble
  let prompt = prefix;
  let cached = 0;
  const see = (i: ItemInput): CanonicalEventInput => {
    prompt += tokens(i.blocks as Block[]);
    return item(i);
  };
  const usage = (output: number): Usage => {
    const u: Usage =
      cached === 0
        ? { input: 3, cacheWrite: prompt - 3, output }
        : { input: 3, cacheRead: cached, cacheWrite: prompt - cached - 3, output };
    cached = prompt - 3;
    return u;
  };
  let r = 0;
  /** One agent turn: request, the assistant item, the response with usage. */
  const turn = (a: ItemInput, finish: Finish): void => {
    const id = `req_${String(++r).padStart(2, '0')}`;
    f.add({ kind: 'request', id });
    f.wait(3);
    const u = usage(tokens(a.blocks as Block[]));
    f.add(see(a));
    f.add({ kind: 'response', request: id, finish, usage: u });
  };

  f.add({
    kind: 'session',
    format: 'palimpsest',
    version: 1,
    id: 'a3f9c2e0-basic',
    harness: 'example-agent',
    harnessVersion: '0.4.2',
    title: 'Fix the last-page bug in paginate()',
    cwd: '/home/dev/shop-api',
  });
  f.add({ kind: 'header', system, tools, route: agent });
  f.wait(20);
  f.add(
    see(
      userItem(
        'u1',
        "The test `paginate › returns the last page` fails since yesterday's refactor. Fix it without changing the public API of src/paginate.ts.",
      ),
    ),
  );

  turn(
    assistantItem(
      'a1',
      reasoning('The user names one failing test. Run it first to see the actual failure before reading code.'),
      text("I'll run the paginate tests first."),
      call('call_01', 'run_tests', { filter: 'paginate' }),
    ),
    TOOL_USE(),
  );
  f.wait(4);
  const beforeT1 = prompt;
  const t1 = toolItem(
    't1',
    'call_01',
    [
      ' RUN  v4.1.12 /home/dev/shop-api',
      '',
      ' ❯ test/paginate.test.ts (6 tests | 1 failed) 14ms',
      '   ✓ paginate › returns the first page',
      '   ✓ paginate › returns a middle page',
      '   × paginate › returns the last page',
      '   ✓ paginate › clamps a page past the end',
      '   ✓ paginate › rejects size 0',
      '   ✓ paginate › reports the page count',
      '',
      ' FAIL  test/paginate.test.ts > paginate > returns the last page',
      "AssertionError: expected [ 'g', 'h' ] to deeply equal [ 'g', 'h', 'i' ]",
      ' ❯ test/paginate.test.ts:31:42',
      "     29|   it('returns the last page', () => {",
      "     30|     const items = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'];",
      "     31|     expect(paginate(items, 3, 3).items).toEqual(['g', 'h', 'i']);",
      '       |                                          ^',
      '     32|   });',
      '',
      ' Test Files  1 failed (1)',
      '      Tests  1 failed | 5 passed (6)',
    ].join('\n'),
  );
  f.add(see(t1));

  // Masking on the model's request, tail only (cosh): the newest tool result becomes a reference.
  turn(
    assistantItem(
      'a2',
      text("The last page loses its final item. I have what I need from that output, so I'll mask it before reading the source."),
      call('call_02', 'mask_tool_result', { call_id: 'call_01' }),
    ),
    TOOL_USE(),
  );
  const reference = [
    text('[tool result call_01 masked by the model: run_tests "paginate", 1 failed | 5 passed; the full output is in the session log]'),
  ];
  f.add({ kind: 'mask', items: ['t1'], by: 'model', reference });
  prompt += tokens(reference) - tokens(t1.blocks as Block[]);
  cached = Math.min(cached, beforeT1 - 3); // a tail mutation: the cached prefix before t1 still holds
  f.add(see(toolItem('t2', 'call_02', 'Masked call_01.')));

  turn(assistantItem('a3', call('call_03', 'read_file', { path: 'src/paginate.ts' })), TOOL_USE());
  f.add(
    see(
      toolItem(
        't3',
        'call_03',
        [
          'export interface Page<T> {',
          '  items: T[];',
          '  page: number;',
          '  pages: number;',
          '}',
          '',
          '/** Page `page` (1-based) of `items`, `size` items a page. */',
          'export function paginate<T>(items: readonly T[], page: number, size: number): Page<T> {',
          '  if (!Number.isInteger(size) || size < 1) throw new RangeError(`size must be a positive integer, got ${size}`);',
          '  const pages = Math.max(1, Math.ceil(items.length / size));',
          '  const current = Math.min(Math.max(1, page), pages);',
          '  const start = (current - 1) * size;',
          '  const end = Math.min(start + size, items.length - 1);',
          '  return { items: items.slice(start, end), page: current, pages };',
          '}',
        ].join('\n'),
      ),
    ),
  );

  turn(
    assistantItem(
      'a4',
      text(
        '`end` is clamped to `items.length - 1`, but `slice` excludes its end index, so the last page loses its final item. The clamp is not needed: `slice` already stops at the end of the array.',
      ),
      call('call_04', 'edit_file', {
        path: 'src/paginate.ts',
        old: '  const end = Math.min(start + size, items.length - 1);\n',
        new: '  const end = start + size;\n',
      }),
    ),
    TOOL_USE(),
  );
  f.add(see(toolItem('t4', 'call_04', 'Replaced 1 occurrence in src/paginate.ts.')));

  turn(assistantItem('a5', call('call_05', 'run_tests', { filter: 'paginate' })), TOOL_USE());
  f.wait(3);
  f.add(see(toolItem('t5', 'call_05', ' ✓ test/paginate.test.ts (6 tests) 9ms\n\n Test Files  1 passed (1)\n      Tests  6 passed (6)')));

  turn(
    assistantItem(
      'a6',
      text(
        'Fixed. `paginate()` no longer clamps `end`: `items.slice(start, start + size)` already stops at the end of the array, so the last page keeps its final item. All 6 paginate tests pass and the public API is unchanged.',
      ),
    ),
    STOP(),
  );

  // A display-only record (cosh's UserCommand item): in the raw history, never sent to the model.
  f.wait(40);
  f.add({ kind: 'item', item: { id: 'cmd1', role: 'user', blocks: [text('/compact')], origin: 'user-command' }, op: { op: 'log' } });

  // One committed manual compaction, in DSH's five steps (DeepSeek Harness): start, summary, one
  // replacement item citing start + summary + every replaced event, end.
  const source = ['u1', 'a1', 't1', 'a2', 't2', 'a3', 't3', 'a4', 't4', 'a5', 't5', 'a6'];
  const sourceTokens = prompt - prefix;
  const start = f.add({
    kind: 'compaction/start',
    id: 'cmp_01',
    trigger: 'manual',
    strategy: 'one-shot summary',
    policy: {
      name: 'example-agent default',
      window: 200_000,
      triggerRatio: 0.8,
      rawTailTokens: 32_000,
      outputReserve: 8_192,
      headroom: 10_000,
    },
    preTokens: prompt,
    source,
  });
  const instruction = [
    text(
      'Summarise the conversation so far for a fresh context window. Use the sections Objective, Constraints, Done, Files, Next. Copy file paths, test names and error messages verbatim.',
    ),
  ];
  const sumReq = `req_${String(++r).padStart(2, '0')}`;
  f.add({
    kind: 'request',
    id: sumReq,
    purpose: 'compaction',
    compactionId: 'cmp_01',
    route: summarizer,
    input: { items: source, instruction },
  });
  const summary = [
    text(
      [
        '## Objective',
        'Fix the failing test `paginate › returns the last page` without changing the public API of src/paginate.ts.',
        '',
        '## Constraints',
        '- Keep the public API of src/paginate.ts (`paginate`, `Page`).',
        '',
        '## Done',
        '- Cause: `end` was clamped to `items.length - 1`, but `Array.prototype.slice` excludes its end index, so the last page lost its final item.',
        '- Fix in src/paginate.ts: `const end = start + size;`.',
        '- `run_tests paginate`: 6 passed.',
        '',
        '## Files',
        '- src/paginate.ts (edited)',
        '- test/paginate.test.ts (read through the test output)',
        '',
        '## Next',
        "- Wait for the user's next request.",
      ].join('\n'),
    ),
  ];
  f.wait(6);
  const sumUsage: Usage = { input: sourceTokens + tokens(instruction) + 12, output: tokens(summary) };
  f.add({ kind: 'response', request: sumReq, finish: STOP(), usage: sumUsage });
  const sum = f.add({
    kind: 'compaction/summary',
    id: 'cmp_01',
    summary,
    source,
    sourceTokens,
    route: summarizer,
    finish: STOP(),
    usage: sumUsage,
    request: sumReq,
  });
  const checkpoint = [
    text(
      `This session continues from a compacted history. The summary below replaces the earlier messages.\n<compacted-summary>\n${summary[0]?.type === 'text' ? summary[0].text : ''}\n</compacted-summary>`,
    ),
  ];
  f.add({
    kind: 'item',
    item: {
      id: 'k1',
      role: 'user',
      blocks: checkpoint,
      origin: 'compaction',
      derivation: { kind: 'checkpoint', compactionId: 'cmp_01', covers: source, part: 'summary' },
    },
    op: { op: 'replace', from: 'u1', to: 'a6' },
    sources: [start, sum, ...f.seqOf(...source)],
  });
  prompt = prefix + tokens(checkpoint);
  cached = prefix - 3;
  f.add({ kind: 'compaction/end', id: 'cmp_01', outcome: 'committed', postTokens: prompt });

  f.wait(30);
  f.add(see(userItem('u2', 'Thanks. Now add a test for an empty list: page 1 of [] should have no items and pages = 1.')));
  turn(
    assistantItem(
      'a7',
      text("I'll add the test next to the other paginate tests."),
      call('call_06', 'edit_file', {
        path: 'test/paginate.test.ts',
        old: "  it('rejects size 0', () => {\n",
        new: "  it('returns an empty first page for an empty list', () => {\n    expect(paginate([], 1, 3)).toEqual({ items: [], page: 1, pages: 1 });\n  });\n\n  it('rejects size 0', () => {\n",
      }),
    ),
    TOOL_USE(),
  );
  f.add(see(toolItem('t6', 'call_06', 'Replaced 1 occurrence in test/paginate.test.ts.')));
  turn(assistantItem('a8', call('call_07', 'run_tests', { filter: 'paginate' })), TOOL_USE());
  f.wait(3);
  f.add(see(toolItem('t7', 'call_07', ' ✓ test/paginate.test.ts (7 tests) 10ms\n\n Test Files  1 passed (1)\n      Tests  7 passed (7)')));
  turn(
    assistantItem(
      'a9',
      text(
        'Added `paginate › returns an empty first page for an empty list` to test/paginate.test.ts. `paginate([], 1, 3)` returns `{ items: [], page: 1, pages: 1 }` without any code change; all 7 tests pass.',
      ),
    ),
    STOP(),
  );
  return f;
}

// ---------------------------------------------------------------------------------------------
// compaction-lifecycle.jsonl — one long session, four compaction attempts: rejected for finish
// reason `length` (cosh's summary_failure_loop), failed schema check (the Conversation Compaction
// article), failed provider call with a loud head/tail truncation fallback with marker (the
// Conversation Compaction article), committed after a provider context overflow (DeepSeek Harness),
// and a manual attempt cancelled after the model answered (Rind). The harness does not record its
// system prompt: `system: null`.
// ---------------------------------------------------------------------------------------------

function compactionLifecycle(): Fixture {
  const f = new Fixture('compaction-lifecycle.jsonl', { seq: true, start: '2026-09-13T01:40:00.000Z', clock: 'iso' });
  const agent = { provider: 'anthropic', model: 'claude-sonnet-4-5', window: 200_000, maxOutput: 16_000 };
  const summarizer = { provider: 'anthropic', model: 'claude-haiku-4-5', window: 200_000, maxOutput: 1_024 };
  const policy = { name: 'preemptive 70 % / reactive 95 %', window: 200_000, triggerRatio: 0.7, outputReserve: 4_096 };
  const instruction = [
    text(
      'Read the messages and emit a JSON object with the keys session_intent, files_touched, decisions, pending_questions, next_steps. Copy file paths, error codes, function names and version numbers verbatim.',
    ),
  ];

  f.add({
    kind: 'session',
    format: 'palimpsest',
    version: 1,
    id: '7d41e5b2-lifecycle',
    harness: 'example-agent',
    title: 'Flaky checkout integration test',
    cwd: '/srv/shop',
  });
  // The harness does not log its system prompt: null says "not recorded", never guessed.
  f.add({
    kind: 'header',
    system: null,
    tools: [schema('bash', 'Run a shell command.', { command: { type: 'string' } }, ['command'])],
    route: agent,
  });
  f.add(item(userItem('u1', 'test/checkout.int.test.ts fails about one run in five on CI. Find out why and fix it.')));

  let n = 0;
  let ctx = 118_000;
  /** One tool unit: request, assistant tool call, response, tool result. */
  const unit = (cmd: string, out: string, grow: number): void => {
    n++;
    f.add({ kind: 'request', id: `req_${n}` });
    f.add(item(assistantItem(`a${n}`, call(`call_${n}`, 'bash', { command: cmd }))));
    f.add({ kind: 'response', request: `req_${n}`, finish: TOOL_USE(), usage: { input: 6, cacheRead: ctx, cacheWrite: grow, output: 41 } });
    ctx += grow;
    f.add(item(toolItem(`t${n}`, `call_${n}`, out)));
  };
  unit(
    'npx vitest run test/checkout.int.test.ts --repeat 20',
    '× checkout › reserves stock (3 of 20 runs)\nError: expected 1 reservation, got 0',
    9_500,
  );
  unit(
    'grep -n "reserve" src/checkout/*.ts',
    'src/checkout/reserve.ts:14:  void stock.reserve(sku, qty);\nsrc/checkout/reserve.ts:15:  return order;',
    8_700,
  );

  // preTokens of a preemptive attempt: the projected next-turn size (context + output bound +
  // expected tool result), which is what crossed the 70 % watermark.
  // Attempt 1: preemptive trigger at 70 %; the summarizer stops at its 1,024-token ceiling
  // (finish reason `length`). Usage is still recorded; nothing is committed (cosh,
  // completion integrity; Rind: a non-success finish is not a handoff).
  f.add({
    kind: 'compaction/start',
    id: 'cmp_1',
    trigger: 'preemptive',
    strategy: 'summary-json',
    policy,
    preTokens: ctx + 4_096 + 2_100,
    source: ['u1', 'a1', 't1', 'a2', 't2'],
  });
  f.add({
    kind: 'request',
    id: 'req_c1',
    purpose: 'compaction',
    compactionId: 'cmp_1',
    route: summarizer,
    input: { items: ['u1', 'a1', 't1', 'a2', 't2'], instruction },
  });
  f.wait(9);
  const lengthFinish: Finish = { raw: 'max_tokens', reason: 'length' };
  f.add({ kind: 'response', request: 'req_c1', finish: lengthFinish, usage: { input: 136_800, output: 1_024 } });
  f.add({
    kind: 'compaction/summary-error',
    id: 'cmp_1',
    error: { code: 'INCOMPLETE', message: 'summarizer response is incomplete (finish reason: length)' },
    finish: lengthFinish,
    usage: { input: 136_800, output: 1_024 },
    route: summarizer,
  });
  f.add({
    kind: 'compaction/end',
    id: 'cmp_1',
    outcome: 'rejected',
    error: { code: 'INCOMPLETE', message: 'summarizer response is incomplete (finish reason: length)' },
  });

  unit(
    'git log -3 --format=%h %s -- src/checkout/reserve.ts',
    'e41b9c2 checkout: reserve stock without waiting\n77a0d13 checkout: add reservations',
    7_900,
  );

  // Attempt 2: the summary comes back complete but fails the required-fields check (the
  // Conversation Compaction article).
  f.add({
    kind: 'compaction/start',
    id: 'cmp_2',
    trigger: 'preemptive',
    strategy: 'summary-json',
    policy,
    preTokens: ctx + 4_096 + 2_100,
    source: ['u1', 'a1', 't1', 'a2', 't2', 'a3', 't3'],
  });
  f.add({
    kind: 'request',
    id: 'req_c2',
    purpose: 'compaction',
    compactionId: 'cmp_2',
    route: summarizer,
    input: { items: ['u1', 'a1', 't1', 'a2', 't2', 'a3', 't3'], instruction },
  });
  f.wait(7);
  f.add({ kind: 'response', request: 'req_c2', finish: STOP(), usage: { input: 144_900, output: 212 } });
  f.add({
    kind: 'compaction/summary-error',
    id: 'cmp_2',
    error: { code: 'SCHEMA', message: 'summarizer missing keys: decisions, next_steps' },
    finish: STOP(),
    usage: { input: 144_900, output: 212 },
    route: summarizer,
  });
  f.add({
    kind: 'compaction/end',
    id: 'cmp_2',
    outcome: 'failed',
    error: { code: 'SCHEMA', message: 'summarizer missing keys: decisions, next_steps' },
  });

  unit(
    'sed -n 1,30p src/checkout/reserve.ts',
    'export async function placeOrder(cart: Cart): Promise<Order> {\n  const order = await orders.create(cart);\n  for (const { sku, qty } of cart.lines) {\n    void stock.reserve(sku, qty);\n  }\n  return order;\n}',
    8_800,
  );

  // Attempt 3: the provider is overloaded; third consecutive failure trips the circuit breaker
  // (the Conversation Compaction article), and the harness falls back to loud head/tail truncation:
  // the system prompt and the recent turns stay, the middle is replaced by a visible marker.
  f.add({
    kind: 'compaction/start',
    id: 'cmp_3',
    trigger: 'preemptive',
    strategy: 'summary-json',
    policy,
    preTokens: ctx + 4_096 + 2_100,
    source: ['u1', 'a1', 't1', 'a2', 't2', 'a3', 't3', 'a4', 't4'],
  });
  f.add({
    kind: 'request',
    id: 'req_c3',
    purpose: 'compaction',
    compactionId: 'cmp_3',
    route: summarizer,
    input: { items: ['u1', 'a1', 't1', 'a2', 't2', 'a3', 't3', 'a4', 't4'], instruction },
  });
  f.wait(30);
  f.add({
    kind: 'response',
    request: 'req_c3',
    finish: { raw: 'error', reason: 'error' },
    error: { code: 'overloaded_error', message: 'Overloaded' },
  });
  f.add({ kind: 'compaction/summary-error', id: 'cmp_3', error: { code: 'overloaded_error', message: 'Overloaded' }, route: summarizer });
  f.add({
    kind: 'record',
    type: 'compactor.breaker_tripped',
    summary: '3 consecutive compaction failures: compaction paused for 5 turns; lossy truncation until then',
  });
  const dropped = ['a1', 't1', 'a2', 't2', 'a3', 't3'];
  f.add({
    kind: 'item',
    item: {
      id: 'm1',
      role: 'user',
      blocks: [text('[earlier history truncated; compactor unavailable]')],
      origin: 'lossy-truncate',
      derivation: { kind: 'marker', of: dropped, fallback: 'truncation' },
    },
    op: { op: 'replace', from: 'a1', to: 't3' },
  });
  f.add({
    kind: 'compaction/end',
    id: 'cmp_3',
    outcome: 'fallback',
    fallback: { kind: 'truncation', marker: true },
    error: { code: 'overloaded_error', message: 'Overloaded' },
    postTokens: 41_700,
  });
  ctx = 41_700;

  unit(
    'npx vitest run test/checkout.int.test.ts --repeat 20 --reporter=verbose',
    '× checkout › reserves stock (4 of 20 runs)\n  reservation written 3 ms after the assertion',
    92_000,
  );
  unit(
    'cat test/checkout.int.test.ts',
    'it("reserves stock", async () => {\n  await placeOrder(cart);\n  expect(await stock.reservations(sku)).toHaveLength(1);\n});',
    61_000,
  );

  // Attempt 4: the next agent request overflows the window; the provider's error is
  // authoritative (DeepSeek Harness's canonical overflow recovery). The commit is one replacement
  // item citing start, summary and every replaced event; the agent then retries.
  n++;
  f.add({ kind: 'request', id: `req_${n}` });
  f.add({
    kind: 'response',
    request: `req_${n}`,
    finish: { raw: 'error', reason: 'error' },
    error: { code: 'context_length_exceeded', message: 'prompt is too long: 203112 tokens > 200000 maximum' },
  });
  const src4 = ['u1', 'm1', 'a4', 't4', 'a5', 't5'];
  const s4 = f.add({
    kind: 'compaction/start',
    id: 'cmp_4',
    trigger: 'overflow',
    strategy: 'checkpoint',
    policy: { ...policy, name: 'reactive 95 %', triggerRatio: 0.95 },
    preTokens: 203_112,
    source: src4,
  });
  f.add({
    kind: 'request',
    id: 'req_c4',
    purpose: 'compaction',
    compactionId: 'cmp_4',
    route: { ...summarizer, maxOutput: 4_096 },
    input: { items: src4, instruction },
  });
  f.wait(12);
  const summary4 = [
    text(
      '{"session_intent":"Fix the flaky test test/checkout.int.test.ts","files_touched":["src/checkout/reserve.ts","test/checkout.int.test.ts"],"decisions":["The flake is a race: placeOrder() does not await stock.reserve() (commit e41b9c2)"],"pending_questions":[],"next_steps":["await every stock.reserve() call in placeOrder()","rerun the test 20 times"]}',
    ),
  ];
  f.add({ kind: 'response', request: 'req_c4', finish: STOP(), usage: { input: 196_300, output: 118 } });
  const sum4 = f.add({
    kind: 'compaction/summary',
    id: 'cmp_4',
    summary: summary4,
    source: src4,
    sourceTokens: 196_300,
    route: { ...summarizer, maxOutput: 4_096 },
    finish: STOP(),
    usage: { input: 196_300, output: 118 },
    request: 'req_c4',
  });
  f.add({
    kind: 'item',
    item: {
      id: 'k4',
      role: 'user',
      blocks: [text(`PRIOR SESSION SUMMARY (immutable until next compaction):\n${summary4[0]?.type === 'text' ? summary4[0].text : ''}`)],
      origin: 'compaction',
      derivation: { kind: 'checkpoint', compactionId: 'cmp_4', covers: src4, part: 'summary' },
    },
    op: { op: 'replace', from: 'u1', to: 't5' },
    sources: [s4, sum4, ...f.seqOf(...src4)],
  });
  f.add({ kind: 'compaction/end', id: 'cmp_4', outcome: 'committed', postTokens: 5_200 });

  n++;
  f.add({ kind: 'request', id: `req_${n}` });
  f.add(
    item(
      assistantItem(
        `a${n}`,
        text('The reservation is fired and forgotten (`void stock.reserve(...)`), so the assertion can run before it is written.'),
        call(`call_${n}`, 'bash', { command: 'sed -i "s/    void stock.reserve/    await stock.reserve/" src/checkout/reserve.ts' }),
      ),
    ),
  );
  f.add({ kind: 'response', request: `req_${n}`, finish: TOOL_USE(), usage: { input: 5_200, output: 96 } });
  f.add(item(toolItem(`t${n}`, `call_${n}`, '')));

  // Attempt 5: a manual /compact; the summary arrives, but the user cancelled meanwhile. The
  // cancellation is rechecked after the model returns and before the commit (Rind).
  const src5 = ['k4', 'a6', 't6', `a${n}`, `t${n}`];
  f.add({ kind: 'compaction/start', id: 'cmp_5', trigger: 'manual', strategy: 'summary-json', policy, preTokens: 5_420, source: src5 });
  f.add({
    kind: 'request',
    id: 'req_c5',
    purpose: 'compaction',
    compactionId: 'cmp_5',
    route: summarizer,
    input: { items: src5, instruction: null },
  });
  f.wait(5);
  f.add({ kind: 'response', request: 'req_c5', finish: STOP(), usage: { input: 5_480, output: 131 } });
  f.add({
    kind: 'compaction/summary',
    id: 'cmp_5',
    summary: [
      text(
        '{"session_intent":"Fix the flaky test","files_touched":["src/checkout/reserve.ts"],"decisions":["await stock.reserve()"],"pending_questions":[],"next_steps":["rerun the test"]}',
      ),
    ],
    finish: STOP(),
    usage: { input: 5_480, output: 131 },
    request: 'req_c5',
  });
  f.add({ kind: 'compaction/end', id: 'cmp_5', outcome: 'cancelled', error: { message: 'cancelled by the user before commit' } });
  return f;
}

// ---------------------------------------------------------------------------------------------
// rind-handoff.jsonl — Rind: an LLM handoff pair (user continuation + assistant
// handoff) with the recent tail kept, tool bodies shortened to 2,000 + 2,000 characters for the
// summary request only, the compact_boundary marker, and a deterministic fallback pair (no marker)
// after the summarizer failed.
// ---------------------------------------------------------------------------------------------

function buildLog(): string {
  const dirs = ['api', 'cart', 'checkout', 'catalog', 'search', 'users'];
  const files = ['index', 'routes', 'service', 'repository', 'schema', 'types', 'util'];
  const out: string[] = ['> shop@2.3.0 build', '> tsc -p tsconfig.build.json', ''];
  let i = 0;
  for (const d of dirs) {
    for (const name of files) {
      i++;
      out.push(
        `src/${d}/${name}.ts(${10 + ((i * 37) % 180)},${5 + ((i * 11) % 40)}): error TS2345: Argument of type 'string | undefined' is not assignable to parameter of type 'string'.`,
      );
    }
  }
  out.push('', `Found ${i} errors in ${i} files.`);
  return out.join('\n');
}

function rindHandoff(): Fixture {
  const f = new Fixture('rind-handoff.jsonl', { seq: true, start: '2026-05-20T14:02:11.000Z', clock: 'iso' });
  const route = { provider: 'openai', model: 'gpt-4.1', window: 200_000, maxOutput: 32_768 };
  // Summary request budget: output reserve min(8,192, window/10), headroom 5 % of the window.
  const policy = { name: 'rind compact_boundary_v3', window: 200_000, triggerRatio: 0.9, outputReserve: 8_192, headroom: 10_000 };
  f.add({
    kind: 'session',
    format: 'palimpsest',
    version: 1,
    id: 'rind-20260520-140211',
    harness: 'rind',
    harnessVersion: '0.9.1',
    cwd: '/home/li/shop',
  });
  f.add({
    kind: 'header',
    system: [text("You are Rind, a coding agent. Work in /home/li/shop. Never drop the user's constraints.")],
    tools: [
      schema('run_shell', 'Run a shell command.', { cmd: { type: 'string' } }, ['cmd']),
      schema('read_file', 'Read a file.', { path: { type: 'string' } }, ['path']),
    ],
    route,
  });
  f.add(item(userItem('u1', 'Make `npm run build` pass. Constraint: do not loosen tsconfig (keep strict: true).')));
  f.add({ kind: 'request', id: 'r1' });
  f.add(item(assistantItem('a1', call('c1', 'run_shell', { cmd: 'npm run build' }))));
  f.add({
    kind: 'response',
    request: 'r1',
    finish: { raw: 'tool_calls', reason: 'tool_calls' },
    usage: { input: 171_200, cacheRead: 0, output: 22 },
  });
  const log = buildLog();
  f.add(item(toolItem('t1', 'c1', log, true)));
  f.add({ kind: 'request', id: 'r2' });
  f.add(
    item(
      assistantItem(
        'a2',
        text('42 errors, all the same pattern: optional values passed where a string is required.'),
        call('c2', 'read_file', { path: 'src/api/routes.ts' }),
      ),
    ),
  );
  f.add({
    kind: 'response',
    request: 'r2',
    finish: { raw: 'tool_calls', reason: 'tool_calls' },
    usage: { input: 1_920, cacheRead: 171_200, output: 58 },
  });
  f.add(item(toolItem('t2', 'c2', 'router.get("/items/:id", (req, res) => res.json(items.get(req.params.id)));')));
  f.add({ kind: 'request', id: 'r3' });
  f.add(
    item(
      assistantItem(
        'a3',
        text('I will add a `requireParam(req, name)` helper that throws 400 when a parameter is missing, and use it at all 42 call sites.'),
      ),
    ),
  );
  f.add({ kind: 'response', request: 'r3', finish: { raw: 'stop', reason: 'stop' }, usage: { input: 64, cacheRead: 173_120, output: 36 } });
  f.add(item(userItem('u2', 'Go ahead.')));

  // The compaction: history u1..a3 is summarised; u2 is the recent tail, sent for reference only
  // and kept verbatim after the handoff.
  const source = ['u1', 'a1', 't1', 'a2', 't2', 'a3'];
  const s1 = f.add({ kind: 'compaction/start', id: 'cmp_01', trigger: 'auto', strategy: 'llm_inline', policy, preTokens: 181_530, source });
  // Budget precheck: the over-long tool body is shortened to its first and last 2,000 characters
  // for the summary request only. It is a derived item that never enters the agent's surface.
  const head = log.slice(0, 2_000);
  const tail = log.slice(-2_000);
  const omitted = log.length - 4_000;
  f.add({
    kind: 'item',
    item: {
      id: 't1~short',
      role: 'tool',
      blocks: [result('c1', `${head}\n[… ${omitted} characters omitted …]\n${tail}`, true)],
      origin: 'summary-precheck',
      derivation: { kind: 'pruned', of: 't1', head: 2_000, tail: 2_000, omitted, unit: 'chars' },
    },
    op: { op: 'log' },
  });
  const instruction = [
    text('Summarise `history` for a handoff. `retained_recent_messages` stay verbatim after the handoff: do not repeat them.'),
  ];
  f.add({
    kind: 'request',
    id: 'r4',
    purpose: 'compaction',
    compactionId: 'cmp_01',
    route: { ...route, maxOutput: 8_192 },
    input: { items: ['u1', 'a1', 't1~short', 'a2', 't2', 'a3', 'u2'], instruction },
  });
  f.wait(8);
  const handoff =
    '## Objective\nMake `npm run build` pass.\n## Constraints\n- Keep tsconfig strict: true.\n## Evidence\n- 42 × TS2345 (string | undefined → string), e.g. src/api/routes.ts: `items.get(req.params.id)`.\n## Decision\n- Add `requireParam(req, name)` (400 when missing) and use it at all 42 call sites.\n## Next\n- Implement the helper, then rerun `npm run build`.';
  f.add({ kind: 'response', request: 'r4', finish: { raw: 'stop', reason: 'stop' }, usage: { input: 2_310, output: 141, reasoning: 380 } });
  const sm1 = f.add({
    kind: 'compaction/summary',
    id: 'cmp_01',
    summary: [text(handoff)],
    source,
    finish: { raw: 'stop', reason: 'stop' },
    usage: { input: 2_310, output: 141, reasoning: 380 },
    request: 'r4',
  });
  const prov = [s1, sm1, ...f.seqOf(...source)];
  // The pair: continuation (user) takes the place of the history; the handoff (assistant) follows
  // it, before the kept tail. The summarizer's own reasoning is not kept: a fixed, non-empty
  // reasoning marker stands in for it.
  f.add({
    kind: 'item',
    item: {
      id: 'k1',
      role: 'user',
      blocks: [text('Continue from the compacted conversation state. Use the compact handoff below as the source of prior context.')],
      origin: 'continuation_user_message',
      derivation: { kind: 'checkpoint', compactionId: 'cmp_01', covers: source, part: 'continuation' },
    },
    op: { op: 'replace', from: 'u1', to: 'a3' },
    sources: prov,
  });
  f.add({
    kind: 'item',
    item: {
      id: 'k2',
      role: 'assistant',
      blocks: [reasoning('[compaction handoff]'), text(handoff)],
      origin: 'handoff_message',
      derivation: { kind: 'checkpoint', compactionId: 'cmp_01', covers: source, part: 'handoff' },
    },
    op: { op: 'insert', before: 'u2' },
    sources: prov,
  });
  f.add({
    kind: 'record',
    type: 'compact_boundary',
    summary: 'messages.jsonl: {"role":"assistant","content":"","meta":{"kind":"compact_boundary","compact_id":"cmp_01"}}',
  });
  f.add({ kind: 'compaction/end', id: 'cmp_01', outcome: 'committed', postTokens: 1_210 });

  f.add({ kind: 'request', id: 'r5' });
  f.add(item(assistantItem('a5', call('c5', 'run_shell', { cmd: 'npm run build' }))));
  f.add({ kind: 'response', request: 'r5', finish: { raw: 'tool_calls', reason: 'tool_calls' }, usage: { input: 1_210, output: 22 } });
  f.add(
    item(
      toolItem(
        't5',
        'c5',
        "> shop@2.3.0 build\n> tsc -p tsconfig.build.json\n\nsrc/search/index.ts(88,12): error TS2345: Argument of type 'string | undefined' is not assignable to parameter of type 'string'.\nFound 1 error in src/search/index.ts.",
        true,
      ),
    ),
  );

  // A second compaction: the summarizer times out; Rind builds the handoff deterministically
  // (strategy recorded) — a fallback without a visible marker.
  const source2 = ['k1', 'k2', 'u2', 'a5', 't5'];
  const s2 = f.add({
    kind: 'compaction/start',
    id: 'cmp_02',
    trigger: 'auto',
    strategy: 'llm_inline',
    policy,
    preTokens: 180_900,
    source: source2,
  });
  f.add({
    kind: 'request',
    id: 'r6',
    purpose: 'compaction',
    compactionId: 'cmp_02',
    route: { ...route, maxOutput: 8_192 },
    input: { items: source2, instruction },
  });
  f.wait(120);
  f.add({ kind: 'response', request: 'r6', error: { code: 'timeout', message: 'summary request timed out after 120 s' } });
  const e2 = f.add({
    kind: 'compaction/summary-error',
    id: 'cmp_02',
    error: { code: 'timeout', message: 'summary request timed out after 120 s' },
  });
  const det =
    '## Handoff (deterministic_fallback)\nLast user message: "Go ahead."\nTools run: run_shell npm run build (failed: 1 error in src/search/index.ts).\nEarlier handoff: cmp_01.';
  f.add({
    kind: 'item',
    item: {
      id: 'k3',
      role: 'user',
      blocks: [text('Continue from the compacted conversation state. Use the compact handoff below as the source of prior context.')],
      origin: 'continuation_user_message',
      derivation: { kind: 'checkpoint', compactionId: 'cmp_02', covers: source2, part: 'continuation' },
    },
    op: { op: 'replace', from: 'k1', to: 't5' },
    sources: [s2, e2, ...f.seqOf(...source2)],
  });
  f.add({
    kind: 'item',
    item: {
      id: 'k4',
      role: 'assistant',
      blocks: [reasoning('[compaction handoff]'), text(det)],
      origin: 'handoff_message',
      derivation: { kind: 'checkpoint', compactionId: 'cmp_02', covers: source2, part: 'handoff' },
    },
    sources: [s2, e2, ...f.seqOf(...source2)],
  });
  f.add({
    kind: 'record',
    type: 'compact_boundary',
    summary: 'messages.jsonl: {"role":"assistant","content":"","meta":{"kind":"compact_boundary","compact_id":"cmp_02"}}',
  });
  f.add({
    kind: 'compaction/end',
    id: 'cmp_02',
    outcome: 'fallback',
    fallback: { kind: 'deterministic', marker: false },
    error: { code: 'timeout', message: 'summary request timed out after 120 s' },
    postTokens: 1_120,
  });
  return f;
}

// ---------------------------------------------------------------------------------------------
// remote-compaction.jsonl — an encrypted (opaque) server-side compaction whose replacement history
// re-injects the user's messages before the summary (Codex `compacted.replacement_history`), and
// redacted reasoning.
// ---------------------------------------------------------------------------------------------

function remoteCompaction(): Fixture {
  const f = new Fixture('remote-compaction.jsonl', { seq: true, start: '2026-02-23T12:54:34.000Z', clock: 'ms' });
  const route = { provider: 'openai', model: 'gpt-5.3-codex', window: 272_000, maxOutput: 128_000 };
  f.add({
    kind: 'session',
    format: 'palimpsest',
    version: 1,
    id: '019c8a59-e9dd-71f0-9ae3-4079fe9726a9',
    harness: 'codex',
    harnessVersion: '0.104.0-alpha.1',
    cwd: '/Users/ana/localpush',
  });
  f.add({
    kind: 'header',
    system: [text('You are Codex, a coding agent based on GPT-5. You and the user share the same workspace.')],
    tools: [schema('shell', 'Runs a shell command and returns its output.', { command: { type: 'string' } }, ['command'])],
    route,
  });
  f.add(item(userItem('u1', 'Add a --dry-run flag to `localpush sync`.')));
  f.add({ kind: 'request', id: 'turn-1' });
  f.add(
    item(
      assistantItem(
        'a1',
        { type: 'reasoning', text: '', redacted: true },
        call('fc_1', 'shell', { command: ['rg', '-n', 'fn sync', 'src'] }),
      ),
    ),
  );
  f.add({
    kind: 'response',
    request: 'turn-1',
    finish: TOOL_USE('function_call'),
    usage: { input: 180_400, cacheRead: 171_008, output: 310, reasoning: 192, context: 180_400 },
  });
  f.add(item(toolItem('t1', 'fc_1', 'src/sync.rs:41:pub fn sync(opts: &SyncOptions) -> Result<Report> {')));
  f.add(item(userItem('u2', 'Also print what would be pushed.')));
  f.add({ kind: 'request', id: 'turn-2' });
  f.add(
    item(
      assistantItem(
        'a2',
        { type: 'reasoning', text: '', redacted: true },
        text('Adding `dry_run: bool` to SyncOptions; `sync` will list the files and return before pushing.'),
      ),
    ),
  );
  f.add({
    kind: 'response',
    request: 'turn-2',
    finish: STOP('completed'),
    usage: { input: 245_100, cacheRead: 180_224, output: 1_840, reasoning: 1_310, context: 245_100 },
  });

  // The server compacts; the summary is encrypted. The new history: the user's messages again
  // (copies of u1 and u2), then the opaque compaction item.
  const source = ['u1', 'a1', 't1', 'u2', 'a2'];
  const s = f.add({
    kind: 'compaction/start',
    id: 'remote-1',
    trigger: 'auto',
    strategy: 'remote (Responses API)',
    preTokens: 247_000,
    source,
  });
  f.add({ kind: 'request', id: 'compact-1', purpose: 'compaction', compactionId: 'remote-1', input: { items: source, instruction: null } });
  f.add({ kind: 'response', request: 'compact-1', finish: STOP('completed'), usage: { input: 247_000, output: 5_100 } });
  const opaque: Block = { type: 'opaque', label: 'encrypted remote compaction', chars: 20_412 };
  const sm = f.add({ kind: 'compaction/summary', id: 'remote-1', summary: [opaque], source, request: 'compact-1' });
  f.add({
    kind: 'item',
    item: {
      id: 'k1',
      role: 'assistant',
      blocks: [opaque],
      origin: 'compaction',
      derivation: { kind: 'checkpoint', compactionId: 'remote-1', covers: source, part: 'summary' },
    },
    op: { op: 'replace', from: 'u1', to: 'a2' },
    sources: [s, sm, ...f.seqOf(...source)],
  });
  f.add({
    kind: 'item',
    item: {
      id: 'u1+',
      role: 'user',
      blocks: [text('Add a --dry-run flag to `localpush sync`.')],
      derivation: { kind: 'reinjected', of: ['u1'] },
    },
    op: { op: 'insert', before: 'k1' },
    sources: f.seqOf('u1'),
  });
  f.add({
    kind: 'item',
    item: { id: 'u2+', role: 'user', blocks: [text('Also print what would be pushed.')], derivation: { kind: 'reinjected', of: ['u2'] } },
    op: { op: 'insert', before: 'k1' },
    sources: f.seqOf('u2'),
  });
  f.add({ kind: 'compaction/end', id: 'remote-1', outcome: 'committed', postTokens: 24_900 });
  f.add({ kind: 'request', id: 'turn-3' });
  f.add(item(assistantItem('a3', text('`localpush sync --dry-run` now lists the files it would push and exits without pushing.'))));
  f.add({
    kind: 'response',
    request: 'turn-3',
    finish: STOP('completed'),
    usage: { input: 25_300, cacheRead: 0, output: 402, context: 25_300 },
  });
  return f;
}

// ---------------------------------------------------------------------------------------------
// pruning-masking.jsonl — model-free shrinking: DSH's tool-result pruner (head + marker + tail,
// DeepSeek Harness, configured small here), masking on the model's request with no recorded reference
// (cosh), a harness mask of a superseded result (the Conversation Compaction article), a hidden and
// restored item, images, a meta item, a response logged as two records (extend), and the todo plan
// bound to item boundaries (cosh).
// ---------------------------------------------------------------------------------------------

function pruningMasking(): Fixture {
  const f = new Fixture('pruning-masking.jsonl', { seq: true, start: '2026-03-02T02:10:00.000Z', clock: 'ms' });
  const route = { provider: 'deepseek', model: 'deepseek-chat', window: 131_072, maxOutput: 8_192 };
  f.add({ kind: 'session', format: 'palimpsest', version: 1, id: 'prune-mask-0302', harness: 'example-agent', cwd: '/srv/importer' });
  f.add({
    kind: 'header',
    system: [
      text(
        'You are a coding agent in /srv/importer. Use todo_write to keep a plan. Call mask_tool_result on a tool result you no longer need.',
      ),
    ],
    tools: [
      schema('todo_write', 'Replace the plan.', { todos: { type: 'array' } }, ['todos']),
      schema('query_logs', 'Tail a job log.', { job: { type: 'string' }, lines: { type: 'number' } }, ['job']),
      schema('read_file', 'Read a file.', { path: { type: 'string' } }, ['path']),
      schema('edit_file', 'Edit a file.', { path: { type: 'string' }, old: { type: 'string' }, new: { type: 'string' } }, [
        'path',
        'old',
        'new',
      ]),
      schema('mask_tool_result', 'Replace your newest tool result with a reference.', { call_id: { type: 'string' } }, ['call_id']),
    ],
    route,
  });
  f.add({
    kind: 'item',
    item: {
      id: 'u1',
      role: 'user',
      blocks: [
        text('The nightly import job got slow this week (see the screenshot). Find out why and fix it.'),
        { type: 'image', mediaType: 'image/png', bytes: 48_213 },
      ],
    },
  });
  f.add({
    kind: 'item',
    item: {
      id: 'sr1',
      role: 'user',
      meta: true,
      origin: 'system-reminder',
      blocks: [text('<system-reminder>The working tree has uncommitted changes in src/import/.</system-reminder>')],
    },
  });

  let n = 0;
  let ctx = 2_900;
  const req = (): string => {
    n++;
    const id = `req-${n}`;
    f.add({ kind: 'request', id });
    return id;
  };
  const resp = (id: string, finish: Finish, grow: number, output: number): void => {
    f.add({ kind: 'response', request: id, finish, usage: { input: grow, cacheRead: ctx, output } });
    ctx += grow + output;
  };

  let r = req();
  f.add(
    item(
      assistantItem(
        'a1',
        { type: 'reasoning', text: 'Plan first, then look at the job log.', redacted: false },
        call('call_1', 'todo_write', { todos: ['find the slow step', 'fix it', 'measure'] }),
      ),
    ),
  );
  resp(r, TOOL_USE('tool_calls'), 620, 48);
  f.add(item(toolItem('t1', 'call_1', 'Plan saved (3 items).')));
  // The plan delta binds to the item boundary after which it was recorded.
  f.add({
    kind: 'todo',
    todos: [
      { content: 'Find the slow step', status: 'in_progress' },
      { content: 'Fix it', status: 'pending' },
      { content: 'Measure the job again', status: 'pending' },
    ],
    after: 't1',
  });

  r = req();
  f.add(item(assistantItem('a2', call('call_2', 'query_logs', { job: 'nightly-import', lines: 60 }))));
  resp(r, TOOL_USE('tool_calls'), 40, 30);
  const logLines: string[] = [];
  for (let i = 0; i < 60; i++) {
    const sku = 10_000 + i * 7;
    logLines.push(`02:0${Math.floor(i / 10)}:${String((i * 7) % 60).padStart(2, '0')} SELECT price FROM prices WHERE sku = ${sku} (4 ms)`);
  }
  const log = logLines.join('\n');
  f.add(item(toolItem('t2', 'call_2', log)));

  // Under pressure the pruner shrinks the result on the surface: head + fixed marker + tail.
  // DSH logs `compaction/prune` (the shadowed node and its price) right before the replacement.
  const head = [...log].slice(0, 600).join('');
  const tail = [...log].slice(-200).join('');
  const omitted = [...log].length - 800;
  f.add({
    kind: 'record',
    type: 'compaction/prune',
    summary: `pressure 0.83 ≥ 0.80: shadowed t2 (${Math.ceil(log.length / 4)} estimated tokens)`,
  });
  f.add({
    kind: 'item',
    item: {
      id: 't2~pruned',
      role: 'tool',
      blocks: [result('call_2', `${head}\n[… ${omitted} characters omitted by the tool-result pruner …]\n${tail}`)],
      origin: 'toolResultPruner',
      derivation: { kind: 'pruned', of: 't2', head: 600, tail: 200, omitted, unit: 'codepoints' },
    },
    op: { op: 'replace', from: 't2', to: 't2' },
    sources: f.seqOf('t2'),
  });

  // One response logged as two records (Claude Code writes one line per content block).
  r = req();
  f.add(item(assistantItem('a3', text('One `SELECT … WHERE sku = ?` per row: an N+1 query. Reading the importer.'))));
  f.add({ kind: 'item', item: assistantItem('a3', call('call_3', 'read_file', { path: 'src/import/prices.ts' })), op: { op: 'extend' } });
  resp(r, TOOL_USE('tool_calls'), 700, 60);
  f.add(
    item(
      toolItem(
        't3',
        'call_3',
        'for (const row of rows) {\n  const price = await db.one("SELECT price FROM prices WHERE sku = $1", [row.sku]);\n  out.push({ ...row, price });\n}',
      ),
    ),
  );
  f.add({
    kind: 'todo',
    todos: [
      { content: 'Find the slow step', status: 'completed' },
      { content: 'Fix it', status: 'in_progress' },
      { content: 'Measure the job again', status: 'pending' },
    ],
    after: 't3',
  });

  r = req();
  f.add(
    item(
      assistantItem(
        'a4',
        call('call_4', 'edit_file', {
          path: 'src/import/prices.ts',
          old: 'for (const row of rows) {',
          new: 'const prices = await db.pricesFor(rows.map((r) => r.sku));\nfor (const row of rows) {',
        }),
      ),
    ),
  );
  resp(r, TOOL_USE('tool_calls'), 90, 110);
  f.add(item(toolItem('t4', 'call_4', 'Edited src/import/prices.ts.')));

  r = req();
  f.add(item(assistantItem('a5', call('call_5', 'read_file', { path: 'src/import/prices.ts' }))));
  resp(r, TOOL_USE('tool_calls'), 40, 28);
  f.add(
    item(
      toolItem(
        't5',
        'call_5',
        'const prices = await db.pricesFor(rows.map((r) => r.sku));\nfor (const row of rows) {\n  out.push({ ...row, price: prices.get(row.sku) });\n}',
      ),
    ),
  );
  // The harness replaces the older read of the same file (surgical tool-result deletion, the
  // Conversation Compaction article).
  f.add({ kind: 'mask', items: ['t3'], by: 'harness', reference: [text('[result superseded; see call_5]')] });
  // The reminder is stale now; the harness hides it from the model.
  f.add({ kind: 'drop', items: ['sr1'], reason: 'hidden' });

  r = req();
  f.add(item(assistantItem('a6', call('call_6', 'query_logs', { job: 'nightly-import --dry-run', lines: 3 }))));
  resp(r, TOOL_USE('tool_calls'), 120, 30);
  f.add(item(toolItem('t6', 'call_6', 'nightly-import: 18 412 rows, 1 query, 38 s (was 412 s)')));

  // The model asks to mask its newest tool result; this harness does not log the reference text.
  r = req();
  f.add(
    item(
      assistantItem(
        'a7',
        text('38 s instead of 412 s. I no longer need the run output.'),
        call('call_7', 'mask_tool_result', { call_id: 'call_6' }),
      ),
    ),
  );
  resp(r, TOOL_USE('tool_calls'), 60, 40);
  f.add({ kind: 'mask', items: ['t6'], by: 'model' });
  f.add(item(toolItem('t7', 'call_7', 'Masked call_6.')));
  f.add({ kind: 'restore', items: ['sr1'] });
  f.add({
    kind: 'todo',
    todos: [
      { content: 'Find the slow step', status: 'completed' },
      { content: 'Fix it', status: 'completed' },
      { content: 'Measure the job again', status: 'completed' },
    ],
    after: 't7',
  });

  r = req();
  f.add(
    item(
      assistantItem(
        'a8',
        text(
          'Fixed: prices are now loaded with one `pricesFor()` query instead of one query per row; the job takes 38 s instead of 412 s.',
        ),
      ),
    ),
  );
  resp(r, STOP('stop'), 50, 44);
  return f;
}

// ---------------------------------------------------------------------------------------------
// mapreduce.jsonl — cosh: a legacy version-1 staging from an older build, rebuilt after
// a process restart as version-3 staging with a new fingerprint; four whole-item segments mapped
// concurrently (one overflows), one repartition, reductions by level, one reread, an audit that
// fails, a correction, a passing re-audit, and the checkpoint composed before the raw tail.
// ---------------------------------------------------------------------------------------------

function mapreduce(): Fixture {
  const f = new Fixture('mapreduce.jsonl', { seq: true, start: '2026-09-05T08:00:00.000Z', clock: 'ms' });
  const agent = { provider: 'zai', model: 'glm-5.3-flash', window: 1_000_000, maxOutput: 32_000 };
  const summarizer = { provider: 'ollama', model: 'qwen3:8b', window: 32_768, maxOutput: 2_000 };
  f.add({
    kind: 'session',
    format: 'palimpsest',
    version: 1,
    id: 'cosh-5e7a01',
    harness: 'cosh',
    harnessVersion: '0.8.3',
    cwd: '/home/dz/csvkit-rs',
  });
  f.add({
    kind: 'header',
    system: [text('You are cosh, a coding agent.')],
    tools: [schema('shell', 'Run a command.', { cmd: { type: 'string' } }, ['cmd'])],
    route: agent,
  });
  f.add(item(userItem('u1', 'Port the CSV writer to the new Sink trait. Constraint: do not change the CSV column order.')));
  const files = ['src/writer.rs', 'src/sink.rs', 'src/lib.rs', 'tests/writer.rs', 'benches/write.rs'];
  files.forEach((path, i) => {
    const k = i + 1;
    f.add(item(assistantItem(`a${k}`, call(`c${k}`, 'shell', { cmd: `cat ${path}` }))));
    f.add(item(toolItem(`t${k}`, `c${k}`, `// ${path}\n// (${[180, 95, 40, 260, 70][i]} lines)`)));
  });
  f.add(item(assistantItem('a6', text('Writer ported; Sink::flush is called once per record. Tests pass; the bench is unchanged.'))));
  f.add(item(userItem('u2', 'Before you go on: keep the old `Writer::new` as a deprecated alias.')));
  const source = ['u1', 'a1', 't1', 'a2', 't2', 'a3', 't3', 'a4', 't4', 'a5', 't5', 'a6'];

  // An earlier attempt by cosh 0.8.3: legacy byte-sliced staging (version 1). The process ended
  // before the compaction did.
  f.add({ kind: 'compaction/start', id: 'cmp_6', trigger: 'auto', strategy: 'mapreduce', source });
  f.add({
    kind: 'mapreduce/staging',
    compactionId: 'cmp_6',
    version: 1,
    fingerprint: 'xxh3:9b1f04c2e7aa3d10',
    segments: [
      { ordinal: 0, items: ['u1', 'a1', 't1', 'a2'] },
      { ordinal: 1, items: ['t2', 'a3', 't3', 'a4', 't4', 'a5', 't5', 'a6'] },
    ],
  });
  f.add({
    kind: 'mapreduce/map',
    compactionId: 'cmp_6',
    ordinal: 0,
    status: 'accepted',
    summary: [text('Objective: port the CSV writer to Sink…')],
  });
  f.wait(3_600);
  f.add({ kind: 'lifecycle', boundary: 'process-start' });
  f.add({ kind: 'header', route: agent });

  // cosh 0.9: the legacy staging is not reused; it is rebuilt from the immutable source.
  const policy = { name: 'cosh default', window: 200_000, triggerRatio: 0.8, rawTailTokens: 40_000 };
  const start = f.add({
    kind: 'compaction/start',
    id: 'cmp_7',
    trigger: 'auto',
    strategy: 'mapreduce',
    policy,
    preTokens: 164_200,
    source,
  });
  f.add({
    kind: 'record',
    type: 'staging/invalidated',
    summary: 'MapReduce staging version 1 (cmp_6) predates completion checks: rebuilt from the immutable source, generated text not reused',
  });
  const segments = [
    { ordinal: 0, items: ['u1', 'a1', 't1'] },
    { ordinal: 1, items: ['a2', 't2', 'a3', 't3'] },
    { ordinal: 2, items: ['a4', 't4', 'a5', 't5'] },
    { ordinal: 3, items: ['a6'] },
  ];
  f.add({ kind: 'mapreduce/staging', compactionId: 'cmp_7', version: 3, fingerprint: 'xxh3:4c22d8e1f0b97a65', segments });

  // Four maps run concurrently (cosh runs at most four); responses arrive out of order.
  for (const s of segments)
    f.add({
      kind: 'request',
      id: `map-${s.ordinal}`,
      purpose: 'map',
      compactionId: 'cmp_7',
      route: summarizer,
      input: { items: s.items, instruction: null },
    });
  f.wait(4);
  f.add({
    kind: 'response',
    request: 'map-2',
    finish: { raw: 'error', reason: 'error' },
    error: { code: 'context_length_exceeded', message: 'input 33 912 tokens exceeds the 32 768-token window' },
  });
  f.add({ kind: 'mapreduce/map', compactionId: 'cmp_7', ordinal: 2, status: 'failed' });
  const mapDone = (ordinal: number, summary: string, usage: Usage): number => {
    f.add({ kind: 'response', request: `map-${ordinal}`, finish: { raw: 'stop', reason: 'stop' }, usage });
    return f.add({
      kind: 'mapreduce/map',
      compactionId: 'cmp_7',
      ordinal,
      status: 'accepted',
      summary: [text(summary)],
      finish: { raw: 'stop', reason: 'stop' },
      usage,
    });
  };
  const m0 = mapDone(
    0,
    'Objective: port the CSV writer (src/writer.rs, 180 lines) to the Sink trait. Constraint: keep the CSV column order.',
    { input: 21_400, output: 310 },
  );
  const m3 = mapDone(3, 'Result: writer ported; Sink::flush once per record; tests pass; bench unchanged.', { input: 1_900, output: 120 });
  const m1 = mapDone(1, 'Sink trait (src/sink.rs): write_record, flush. lib.rs re-exports Writer.', { input: 24_800, output: 290 });

  // Overflow of an incomplete map: one whole-item repartition (cosh allows three). Accepted maps
  // keep their ordinals; the failed segment is replaced by two new ones.
  f.add({
    kind: 'mapreduce/repartition',
    compactionId: 'cmp_7',
    attempt: 1,
    segments: [
      { ordinal: 4, items: ['a4', 't4'] },
      { ordinal: 5, items: ['a5', 't5'] },
    ],
  });
  f.add({
    kind: 'request',
    id: 'map-4',
    purpose: 'map',
    compactionId: 'cmp_7',
    route: summarizer,
    input: { items: ['a4', 't4'], instruction: null },
  });
  f.add({
    kind: 'request',
    id: 'map-5',
    purpose: 'map',
    compactionId: 'cmp_7',
    route: summarizer,
    input: { items: ['a5', 't5'], instruction: null },
  });
  const m4 = mapDone(4, 'tests/writer.rs (260 lines): round-trip tests; they assert the column order.', { input: 27_100, output: 180 });
  const m5 = mapDone(5, 'benches/write.rs: 1 bench, 70 lines.', { input: 6_800, output: 60 });

  // Reductions: level 0 takes map ordinals in source order, level 1 takes level-0 indexes.
  f.add({
    kind: 'mapreduce/reduce',
    compactionId: 'cmp_7',
    level: 0,
    inputs: [0, 1, 4],
    output: [text('Port writer to Sink; keep column order; tests assert it.')],
    finish: { raw: 'stop', reason: 'stop' },
    usage: { input: 1_100, output: 90 },
  });
  f.add({
    kind: 'mapreduce/reduce',
    compactionId: 'cmp_7',
    level: 0,
    inputs: [5, 3],
    output: [text('Bench unchanged; port done; tests pass.')],
    finish: { raw: 'stop', reason: 'stop' },
    usage: { input: 400, output: 40 },
  });
  // The final reducer asks `REREAD: 2-3` for the Sink trait source; one reread per reduction.
  f.add({ kind: 'mapreduce/reread', compactionId: 'cmp_7', ranges: [{ from: 'a2', to: 't2' }], status: 'served' });
  const final = [
    text(
      '## Objective\nPort the CSV writer to the Sink trait.\n## Constraints\n- Do not change the CSV column order.\n## Done\n- Writer ported; Sink::flush once per record; tests pass; bench unchanged.\n## Files\n- src/writer.rs, src/sink.rs, src/lib.rs, tests/writer.rs, benches/write.rs',
    ),
  ];
  f.add({
    kind: 'mapreduce/reduce',
    compactionId: 'cmp_7',
    level: 1,
    inputs: [0, 1],
    output: final,
    final: true,
    finish: { raw: 'stop', reason: 'stop' },
    usage: { input: 1_700, output: 160 },
  });
  // The validator audits the candidate against the map summaries; a correction is revalidated.
  f.add({
    kind: 'mapreduce/audit',
    compactionId: 'cmp_7',
    verdict: 'fail',
    issues: ['map 1: lib.rs re-exports Writer — missing from the candidate (needed for the deprecated alias)'],
  });
  const corrected = [
    text(
      '## Objective\nPort the CSV writer to the Sink trait.\n## Constraints\n- Do not change the CSV column order.\n## Done\n- Writer ported; Sink::flush once per record; tests pass; bench unchanged.\n- src/lib.rs re-exports Writer.\n## Files\n- src/writer.rs, src/sink.rs, src/lib.rs, tests/writer.rs, benches/write.rs',
    ),
  ];
  const corr = f.add({ kind: 'mapreduce/correction', compactionId: 'cmp_7', n: 1, accepted: true, output: corrected });
  f.add({ kind: 'mapreduce/audit', compactionId: 'cmp_7', verdict: 'pass' });

  // The checkpoint is appended now but composed before the raw tail (u2), which stays verbatim.
  f.add({
    kind: 'item',
    item: {
      id: 'k7',
      role: 'user',
      blocks: corrected,
      origin: 'Compaction',
      derivation: { kind: 'checkpoint', compactionId: 'cmp_7', covers: source, part: 'summary' },
    },
    op: { op: 'insert', before: 'u2' },
    sources: [start, m0, m1, m3, m4, m5, corr, ...f.seqOf(...source)],
  });
  f.add({ kind: 'compaction/end', id: 'cmp_7', outcome: 'committed', postTokens: 3_400 });
  f.add({ kind: 'request', id: 'req-next' });
  f.add(item(assistantItem('a7', text('Keeping `Writer::new` as a deprecated alias of `Writer::with_sink`.'))));
  f.add({ kind: 'response', request: 'req-next', finish: { raw: 'stop', reason: 'stop' }, usage: { input: 3_450, output: 28 } });
  return f;
}

// ---------------------------------------------------------------------------------------------
// branches.jsonl — cosh: one file, branches named; a fork shares the parent's events
// by reference; a revert cuts a branch back to an earlier event; a rollback restores the exact
// head the revert abandoned. Plans (todo) follow the branch.
// ---------------------------------------------------------------------------------------------

function branches(): Fixture {
  const f = new Fixture('branches.jsonl', { seq: true, start: '2026-04-11T16:00:00.000Z', clock: 'ms' });
  f.branch = 'main';
  const route = { provider: 'openai', model: 'gpt-4.1-mini', window: 1_047_576, maxOutput: 32_768 };
  f.add({ kind: 'session', format: 'palimpsest', version: 1, id: 'cosh-branches-b04', harness: 'cosh', cwd: '/home/dz/pricing' });
  f.add({
    kind: 'header',
    system: [text('You are cosh, a coding agent.')],
    tools: [schema('shell', 'Run a command.', { cmd: { type: 'string' } }, ['cmd'])],
    route,
  });
  f.add(item(userItem('u1', 'priceFor() is slow: add a cache.')));
  let n = 0;
  const answer = (id: string, t: string): number => {
    n++;
    f.add({ kind: 'request', id: `r${n}` });
    f.add(item(assistantItem(id, text(t))));
    return f.add({
      kind: 'response',
      request: `r${n}`,
      finish: { raw: 'stop', reason: 'stop' },
      usage: { input: 900 + 40 * n, output: 60 },
    });
  };
  f.add({ kind: 'todo', todos: [{ content: 'Add a cache to priceFor()', status: 'in_progress' }], after: 'u1' });
  const forkPoint = answer('a1', 'Two options: an in-memory LRU (simple, per process) or a SQLite table (shared, survives restarts).');

  // Fork: branch `sqlite` inherits main through `forkPoint`, by reference (no copy).
  f.add({ kind: 'fork', branch: 'sqlite', parent: { branch: 'main', seq: forkPoint }, label: 'try SQLite' });
  f.add({ kind: 'item', branch: 'sqlite', item: userItem('s-u2', 'Try the SQLite table.') });
  f.add({
    kind: 'todo',
    branch: 'sqlite',
    todos: [
      { content: 'Add a cache to priceFor()', status: 'in_progress' },
      { content: 'Migration for the price_cache table', status: 'pending' },
    ],
    after: 's-u2',
  });
  f.add({ kind: 'request', branch: 'sqlite', id: 's-r1' });
  f.add({
    kind: 'item',
    branch: 'sqlite',
    item: assistantItem('s-a2', text('Adding migrations/0007_price_cache.sql and a read-through cache in priceFor().')),
  });
  f.add({
    kind: 'response',
    branch: 'sqlite',
    request: 's-r1',
    finish: { raw: 'stop', reason: 'stop' },
    usage: { input: 1_010, output: 55 },
  });

  // main goes on with the LRU.
  f.add(item(userItem('u2', 'Go with the in-memory LRU, 100 entries.')));
  answer('a2', 'Added an LRU of 100 entries in front of priceFor().');
  const kept = f.add({ kind: 'todo', todos: [{ content: 'Add a cache to priceFor()', status: 'completed' }], after: 'a2' });
  f.add(item(userItem('u3', 'Make it 500 entries.')));
  const head = answer('a3', 'The LRU now holds 500 entries.');

  // Revert: main goes back to `kept`; u3/a3 stay in the raw history, out of main's view.
  f.add({ kind: 'revert', target: { branch: 'main', seq: kept }, label: 'undo "Make it 500 entries."' });
  f.add(item(userItem('u3b', 'Keep 100 entries but add a 10-minute TTL.')));
  answer('a3b', 'Entries now expire after 10 minutes.');

  // Rollback: restore the exact head before the revert (u3/a3 again; u3b/a3b abandoned).
  f.add({ kind: 'rollback', target: { branch: 'main', seq: head }, label: 'undo revert' });
  f.add(item(userItem('u4', 'Fine, 500 entries then. Ship it.')));
  answer('a4', 'Done: LRU of 500 entries in front of priceFor().');
  return f;
}

// ---------------------------------------------------------------------------------------------
// lifecycle.jsonl — DeepSeek Harness: a forked child session whose log replays the parent's prefix,
// then `end-seed`; an unmatched compaction/start inherited from the parent (stale, does not
// block); a compaction bracket left open by a crashed process, then `process-start`; later a
// `resume`. The system prompt is an item at surface position 0 (header `system: []`).
// ---------------------------------------------------------------------------------------------

function lifecycle(): Fixture {
  const f = new Fixture('lifecycle.jsonl', { seq: true, start: '2026-06-01T10:00:00.000Z', clock: 'ms' });
  const route = { provider: 'deepseek', model: 'deepseek-chat', window: 131_072, maxOutput: 8_192 };
  const policy = { name: 'compaction-basic', window: 131_072, triggerRatio: 0.8, rawTailTokens: 20_971 };
  f.add({
    kind: 'session',
    format: 'palimpsest',
    version: 1,
    id: 'dsh-child-42',
    harness: 'dsh',
    harnessVersion: '0.1.1-rc.2',
    cwd: '/work/app',
    parent: { session: 'dsh-parent-41', seq: 8, origin: 'fork' },
  });
  // Inherited prefix (copied from the parent's log).
  f.add({ kind: 'header', system: [], tools: [schema('bash', 'Run a command.', { command: { type: 'string' } }, ['command'])], route });
  f.add({ kind: 'item', item: { id: 'sys', role: 'system', blocks: [text('You are a DSH agent. Work in /work/app.')] } });
  f.add(item(userItem('u1', 'Upgrade the app to Node 22.')));
  f.add({ kind: 'request', id: 'p-r1' });
  f.add(item(assistantItem('a1', call('k1', 'bash', { command: 'cat .nvmrc package.json | head -20' }))));
  f.add({ kind: 'response', request: 'p-r1', finish: { raw: 'tool-calls', reason: 'tool_calls' }, usage: { input: 1_300, output: 30 } });
  f.add(item(toolItem('t1', 'k1', '20.18.0\n{ "engines": { "node": ">=20.18" } }')));
  // The parent crashed while this compaction was open; its start is stale evidence here.
  f.add({ kind: 'compaction/start', id: 'parent-cmp-1', trigger: 'auto', strategy: 'compaction-basic', policy });
  f.add({ kind: 'lifecycle', boundary: 'end-seed' });

  // The child's own events.
  f.add(item(userItem('u2', 'Just bump .nvmrc and engines; CI images later.')));
  f.add({ kind: 'request', id: 'c-r1' });
  f.add(item(assistantItem('a2', call('k2', 'bash', { command: 'echo 22.12.0 > .nvmrc && npm pkg set engines.node=">=22.12"' }))));
  f.add({ kind: 'response', request: 'c-r1', finish: { raw: 'tool-calls', reason: 'tool_calls' }, usage: { input: 1_420, output: 44 } });
  f.add(item(toolItem('t2', 'k2', '')));
  // This process opens a compaction and dies before closing it.
  f.add({
    kind: 'compaction/start',
    id: 'child-cmp-1',
    trigger: 'manual',
    strategy: 'compaction-basic',
    policy,
    source: ['u1', 'a1', 't1'],
  });
  f.wait(600);
  f.add({ kind: 'lifecycle', boundary: 'process-start' });
  // The new process: child-cmp-1 is stale, so a new compaction may start.
  const source = ['u1', 'a1', 't1', 'u2', 'a2', 't2'];
  const s = f.add({ kind: 'compaction/start', id: 'child-cmp-2', trigger: 'manual', strategy: 'compaction-basic', policy, source });
  f.add({
    kind: 'request',
    id: 'c-r2',
    purpose: 'compaction',
    compactionId: 'child-cmp-2',
    input: { items: ['sys', ...source], instruction: [text('Summarise the conversation for a checkpoint.')] },
  });
  f.add({ kind: 'response', request: 'c-r2', finish: { raw: 'stop', reason: 'stop' }, usage: { input: 1_560, output: 70 } });
  const summary = [
    text('Node 22 upgrade: .nvmrc = 22.12.0, engines.node ">=22.12". CI images not changed yet (user asked to leave them).'),
  ];
  const sm = f.add({
    kind: 'compaction/summary',
    id: 'child-cmp-2',
    summary,
    source,
    sourceTokens: 240,
    finish: { raw: 'stop', reason: 'stop' },
    usage: { input: 1_560, output: 70 },
    request: 'c-r2',
  });
  f.add({
    kind: 'item',
    item: {
      id: 'ck1',
      role: 'user',
      blocks: [text(`<compacted-summary>\n${summary[0]?.type === 'text' ? summary[0].text : ''}\n</compacted-summary>`)],
      origin: 'plugin:compact',
      derivation: { kind: 'checkpoint', compactionId: 'child-cmp-2', covers: source, part: 'summary' },
    },
    op: { op: 'replace', from: 'u1', to: 't2' },
    sources: [s, sm, ...f.seqOf(...source)],
  });
  f.add({ kind: 'compaction/end', id: 'child-cmp-2', outcome: 'committed', postTokens: 160 });
  f.wait(86_400);
  f.add({ kind: 'lifecycle', boundary: 'resume' });
  f.add({ kind: 'header', route: { ...route, model: 'deepseek-reasoner' } });
  f.add(item(userItem('u3', 'Now update the CI images too.')));
  f.add({ kind: 'request', id: 'c-r3' });
  f.add(
    item(
      assistantItem(
        'a3',
        { type: 'reasoning', text: 'CI images are in .github/workflows; bump node-version there.' },
        text('Updating node-version in .github/workflows/ci.yml to 22.12.'),
      ),
    ),
  );
  f.add({ kind: 'response', request: 'c-r3', finish: { raw: 'stop', reason: 'stop' }, usage: { input: 320, output: 90, reasoning: 40 } });
  return f;
}

// ---------------------------------------------------------------------------------------------
// unknown-kinds.jsonl — lines of kinds v1 does not define are kept (as `unknown` events) and
// counted; a converter's own `unknown` event; a `record` (understood, changes nothing). No `seq`
// in this file: line order is the seq.
// ---------------------------------------------------------------------------------------------

function unknownKinds(): Fixture {
  const f = new Fixture('unknown-kinds.jsonl', { seq: false, start: '2026-01-15T12:00:00.000Z', clock: 'iso' });
  f.add({ kind: 'session', format: 'palimpsest', version: 1, id: 'unknown-kinds-1', harness: 'acme-agent' });
  f.add({
    kind: 'header',
    system: [text('You are a helpful assistant.')],
    tools: [],
    route: { provider: 'mistral', model: 'mistral-large-latest', window: 131_072 },
  });
  f.raw({ kind: 'turn/start', turn: 1 });
  f.add(item(userItem('u1', 'What does HTTP 418 mean?')));
  f.add({ kind: 'request', id: 'r1' });
  f.raw({ kind: 'acme/telemetry', latencyMs: 812, region: 'eu-west-1' });
  // A converter that kept a record it did not understand writes it as `unknown` itself.
  f.add({ kind: 'unknown', type: 'assistant/chunk' });
  f.add(
    item(
      assistantItem(
        'a1',
        text('"I\'m a teapot" (RFC 2324): an April Fools\' status code; some servers use it to refuse requests they consider automated.'),
      ),
    ),
  );
  f.add({ kind: 'response', request: 'r1', finish: { raw: 'stop', reason: 'stop' }, usage: { input: 21, output: 34 } });
  f.raw({ kind: 'turn/end', turn: 1, reason: 'completed' });
  f.add({ kind: 'record', type: 'session/title', summary: 'HTTP 418' });
  f.raw({ kind: 'turn/start', turn: 2 });
  f.add(item(userItem('u2', 'Is it in the IANA registry?')));
  f.add({ kind: 'request', id: 'r2' });
  f.add(item(assistantItem('a2', text('Yes: 418 is reserved ("(Unused)") in the IANA HTTP status code registry since RFC 9110.'))));
  f.add({ kind: 'response', request: 'r2', finish: { raw: 'stop', reason: 'stop' }, usage: { input: 62, output: 25 } });
  f.raw({ kind: 'turn/end', turn: 2, reason: 'completed' });
  return f;
}

// ---------------------------------------------------------------------------------------------

mkdirSync(OUT, { recursive: true });
for (const make of [
  basic,
  compactionLifecycle,
  rindHandoff,
  remoteCompaction,
  pruningMasking,
  mapreduce,
  branches,
  lifecycle,
  unknownKinds,
]) {
  console.log(make().write());
}
