/**
 * Writes the diagnostics fixtures under fixtures/diagnostics/<RULE>/ (docs/diagnostics.md):
 *
 *   fail.jsonl, pass.jsonl          Palimpsest format v1: the rule fires on `fail`, not on `pass`
 *   fail.dsh.jsonl, pass.dsh.jsonl  the same concept in DeepSeek Harness's session format, where it exists
 *
 *   npx tsx scripts/gen-diagnostic-fixtures.ts
 *
 * This file is the source of truth of those fixtures: each one is a small session written to show
 * one failure (and its correct counterpart), with a first `record` line saying what it shows.
 * Output is deterministic (fixed clocks); every Palimpsest event is validated against the
 * canonical schema before it is written. Token counts are those a provider would report for the
 * full-size session the short texts stand for.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Block, LeafBlock } from '../src/shared/model/content';
import {
  CanonicalEvent,
  type BudgetPolicy,
  type CanonicalEventInput,
  type Finish,
  type Route,
  type Usage,
} from '../src/shared/model/event';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'fixtures', 'diagnostics');

type ItemInput = Extract<CanonicalEventInput, { kind: 'item' }>['item'];
type Variant = 'fail' | 'pass';

const text = (t: string): Block & LeafBlock => ({ type: 'text', text: t });
const STOP: Finish = { raw: 'end_turn', reason: 'stop' };
const TOOL_USE: Finish = { raw: 'tool_use', reason: 'tool_calls' };
const LENGTH: Finish = { raw: 'max_tokens', reason: 'length' };
const ROUTE: Route = { provider: 'anthropic', model: 'claude-sonnet-4-5', window: 200_000, maxOutput: 8_192 };
const SYSTEM = [text('You are a coding agent working in /srv/app. Run the tests after every change.')];
const TOOLS = [
  {
    name: 'bash',
    description: 'Run a shell command.',
    inputSchema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
  },
];

const written: string[] = [];

// ---------------------------------------------------------------------------------------------
// Palimpsest v1 fixtures
// ---------------------------------------------------------------------------------------------

interface CompactOptions {
  id: string;
  source: string[];
  summary?: string;
  trigger?: 'auto' | 'manual' | 'overflow' | 'preemptive' | 'reactive' | 'unknown';
  strategy?: string;
  policy?: BudgetPolicy;
  preTokens?: number;
  sourceTokens?: number;
  output?: number;
  finish?: Finish | null;
  maxOutput?: number;
  /** The checkpoint: its op (default: replace the source range), what it covers, its sources. */
  op?: Extract<CanonicalEventInput, { kind: 'item' }>['op'];
  covers?: string[];
  sources?: number[] | null;
  checkpointId?: string;
  /** false: no checkpoint (and the outcome given in `end`). */
  commit?: boolean;
  end?: Omit<Extract<CanonicalEventInput, { kind: 'compaction/end' }>, 'kind' | 'id'>;
}

class PFix {
  private readonly lines: Record<string, unknown>[] = [];
  private readonly created = new Map<string, number>();
  private t = Date.parse('2026-09-13T02:00:00.000Z');
  private requests = 0;

  constructor(
    readonly rule: string,
    readonly variant: Variant,
    note: string,
    opts: { system?: 'prompt' | 'surface' | 'unrecorded'; route?: Route; harness?: string } = {},
  ) {
    this.add({
      kind: 'session',
      format: 'palimpsest',
      version: 1,
      id: `diag-${rule.toLowerCase()}-${variant}`,
      harness: opts.harness ?? 'fixture-agent',
      title: `${rule} (${variant})`,
    });
    this.add({ kind: 'record', type: 'fixture/note', summary: `${variant.toUpperCase()}: ${note}` });
    const system = opts.system === 'surface' ? [] : opts.system === 'unrecorded' ? null : SYSTEM;
    this.add({ kind: 'header', system, tools: TOOLS, route: opts.route ?? ROUTE });
  }

  add(e: CanonicalEventInput): number {
    const parsed = CanonicalEvent.safeParse(e);
    if (!parsed.success) throw new Error(`${this.rule}/${this.variant} line ${this.lines.length + 1}: ${parsed.error.message}`);
    if (e.kind === 'item' && e.op?.op !== 'extend' && !this.created.has(e.item.id)) this.created.set(e.item.id, this.lines.length);
    const seq = this.lines.length;
    this.t += 2_000;
    const { kind, ...rest } = e as Record<string, unknown>;
    this.lines.push({ kind, seq, at: new Date(this.t).toISOString(), ...rest });
    return seq;
  }

  seqOf(...ids: string[]): number[] {
    return ids.map((id) => {
      const s = this.created.get(id);
      if (s === undefined) throw new Error(`${this.rule}/${this.variant}: no item ${id}`);
      return s;
    });
  }

  item(i: ItemInput, op?: Extract<CanonicalEventInput, { kind: 'item' }>['op']): number {
    return this.add(op ? { kind: 'item', item: i, op } : { kind: 'item', item: i });
  }

  user(id: string, t: string): number {
    return this.item({ id, role: 'user', blocks: [text(t)] });
  }

  /** One model call: request, the assistant item it produced, response with usage. */
  ask(
    item: ItemInput,
    usage: Usage,
    finish: Finish = item.blocks.some((b) => b.type === 'tool_call') ? TOOL_USE : STOP,
    route?: Route,
  ): string {
    const id = `r${++this.requests}`;
    this.add(route ? { kind: 'request', id, route } : { kind: 'request', id });
    this.item(item);
    this.add({ kind: 'response', request: id, finish, usage });
    return id;
  }

  /** A tool unit: the assistant's call (one model call) and the tool's result. */
  unit(n: string, command: string, output: string, usage: Usage): void {
    this.ask(
      { id: `a${n}`, role: 'assistant', blocks: [{ type: 'tool_call', id: `c${n}`, name: 'bash', input: JSON.stringify({ command }) }] },
      usage,
    );
    this.item({ id: `t${n}`, role: 'tool', blocks: [{ type: 'tool_result', callId: `c${n}`, content: [text(output)] }] });
  }

  /** A compaction bracket in DSH's five steps: start, summarizer call, summary, checkpoint, end. */
  compact(o: CompactOptions): { start: number; summary: number; checkpoint: number | null } {
    const start = this.add({
      kind: 'compaction/start',
      id: o.id,
      trigger: o.trigger ?? 'auto',
      strategy: o.strategy ?? 'one-shot summary',
      source: o.source,
      ...(o.policy ? { policy: o.policy } : {}),
      ...(o.preTokens !== undefined ? { preTokens: o.preTokens } : {}),
    });
    const req = `${o.id}-summary`;
    const summaryText = o.summary ?? '## Objective\nKeep the build green.\n## Done\n- Tests pass.\n## Next\n- Wait for the user.';
    this.add({
      kind: 'request',
      id: req,
      purpose: 'compaction',
      compactionId: o.id,
      route: { maxOutput: o.maxOutput ?? 8_192 },
      input: { items: o.source, instruction: [text('Summarise the conversation for a fresh context window.')] },
    });
    const usage: Usage = { input: o.sourceTokens ?? 40_000, output: o.output ?? 300 };
    const finish = o.finish === undefined ? STOP : o.finish;
    this.add(finish ? { kind: 'response', request: req, finish, usage } : { kind: 'response', request: req, usage });
    // A rejected attempt logs a summary-error (with the finish reason and usage); a usable one a summary.
    const summary =
      o.commit === false
        ? this.add({
            kind: 'compaction/summary-error',
            id: o.id,
            error: o.end?.error ?? { message: 'the summary was rejected' },
            usage,
            route: { maxOutput: o.maxOutput ?? 8_192 },
            ...(finish ? { finish } : {}),
          })
        : this.add({
            kind: 'compaction/summary',
            id: o.id,
            summary: [text(summaryText)],
            source: o.source,
            sourceTokens: o.sourceTokens ?? 40_000,
            usage,
            request: req,
            ...(finish ? { finish } : {}),
          });
    let checkpoint: number | null = null;
    if (o.commit !== false) {
      const first = o.source[0] as string;
      const last = o.source[o.source.length - 1] as string;
      const sources = o.sources === null ? undefined : (o.sources ?? [start, summary, ...this.seqOf(...o.source)]);
      checkpoint = this.add({
        kind: 'item',
        item: {
          id: o.checkpointId ?? `k-${o.id}`,
          role: 'user',
          origin: 'compaction',
          blocks: [text(`<compacted-summary>\n${summaryText}\n</compacted-summary>`)],
          derivation: { kind: 'checkpoint', compactionId: o.id, covers: o.covers ?? o.source, part: 'summary' },
        },
        op: o.op ?? { op: 'replace', from: first, to: last },
        ...(sources ? { sources } : {}),
      });
    }
    this.add({ kind: 'compaction/end', id: o.id, ...(o.end ?? { outcome: o.commit === false ? 'rejected' : 'committed' }) });
    return { start, summary, checkpoint };
  }

  write(): void {
    const dir = join(OUT, this.rule);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${this.variant}.jsonl`), this.lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    written.push(`${this.rule}/${this.variant}.jsonl: ${this.lines.length} lines`);
  }
}

/** u1, then two tool units and an answer: the history most compactions below summarise. */
function history(f: PFix, ctx = 20_000, step = 9_000): number {
  f.user('u1', 'The nightly import job fails on CI since yesterday. Find out why and fix it; do not change the CSV column order.');
  f.unit('1', 'npm test -- import', '× import › keeps the column order\nExpected: id,name,price\nReceived: id,price,name', {
    input: 6,
    cacheRead: ctx,
    cacheWrite: step,
    output: 40,
  });
  f.unit('2', 'git log -3 --oneline -- src/import.ts', 'e41b9c2 import: sort columns alphabetically\n77a0d13 import: add price column', {
    input: 6,
    cacheRead: ctx + step,
    cacheWrite: step,
    output: 38,
  });
  f.ask(
    {
      id: 'a3',
      role: 'assistant',
      blocks: [text('Commit e41b9c2 sorts the columns alphabetically; that breaks the required order. I will revert that line.')],
    },
    { input: 6, cacheRead: ctx + 2 * step, cacheWrite: step, output: 60 },
  );
  return ctx + 3 * step;
}

const SRC = ['u1', 'a1', 't1', 'a2', 't2', 'a3'];

// ---------------------------------------------------------------------------------------------
// DeepSeek Harness fixtures (its session.jsonl format)
// ---------------------------------------------------------------------------------------------

interface DUsage {
  inputTokens: number;
  outputTokens: number;
}

class DFix {
  private readonly lines: Record<string, unknown>[] = [];
  private seq = 0;
  private t = Date.parse('2026-06-01T10:00:00.000Z');
  private msg = 0;

  constructor(
    readonly rule: string,
    readonly variant: Variant,
    note: string,
    opts: { system?: boolean; window?: number; model?: string } = {},
  ) {
    this.lines.push({
      type: 'session',
      version: 0,
      id: `diag-${rule.toLowerCase()}-${variant}`,
      createdAt: this.t,
      cwd: '/work/app',
      delegationDepth: 0,
    });
    this.ev('session/title', { title: `${variant.toUpperCase()}: ${note}` });
    this.ev('request/header', {
      header: {
        config: { provider: 'deepseek', model: opts.model ?? 'deepseek-chat', maxTokens: 8_192 },
        tools: [{ name: 'bash', description: 'Run a command.', parameters: { type: 'object' } }],
      },
      reason: 'initial',
    });
    this.ev('request/context', { provider: 'deepseek', model: opts.model ?? 'deepseek-chat', contextWindow: opts.window ?? 128_000 });
  }

  /** Append one DSH event; returns its DSH seq (also the id of a surface item: `dsh:<seq>`). */
  ev(type: string, data: unknown, extra: Record<string, unknown> = {}): number {
    const seq = this.seq++;
    this.t += 1_000;
    this.lines.push({ type, seq, time: this.t, data, ...extra });
    return seq;
  }

  context(window: number, model = 'deepseek-chat'): number {
    return this.ev('request/context', { provider: 'deepseek', model, contextWindow: window });
  }

  system(t: string): number {
    return this.ev('system/message', { content: [{ type: 'text', text: t }], role: 'system' }, { surfaceOp: 'append' });
  }

  user(t: string): number {
    return this.ev(
      'user/message',
      { content: [{ type: 'text', text: t }], source: { kind: 'user' }, role: 'user', id: `m${++this.msg}` },
      { surfaceOp: 'append' },
    );
  }

  /** One model call in a step: usage and finish chunks, then the assistant message. Returns the message's seq. */
  step(turn: number, step: number, content: { text?: string; call?: { id: string; command: string } }, usage: DUsage): number {
    this.ev('step/start', { turn, step });
    const chunks: number[] = [];
    chunks.push(this.ev('assistant/chunk', { turn, step, chunk: { type: 'usage', usage } }));
    chunks.push(
      this.ev('assistant/chunk', { turn, step, chunk: { type: 'finish', reason: { kind: content.call ? 'tool-calls' : 'stop' } } }),
    );
    const blocks = content.call
      ? [{ type: 'tool-call', id: content.call.id, name: 'bash', arguments: JSON.stringify({ command: content.call.command }) }]
      : [{ type: 'text', text: content.text ?? '' }];
    const m = this.ev(
      'assistant/message',
      { turn, step, message: { role: 'assistant', content: blocks, source: { kind: 'model' }, id: `m${++this.msg}` }, usage },
      { sourceEventSeqs: chunks, surfaceOp: 'append' },
    );
    return m;
  }

  result(turn: number, step: number, callId: string, t: string): number {
    const r = this.ev(
      'tool/result',
      {
        turn,
        step,
        message: {
          source: { kind: 'tool', callId },
          content: [{ type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text: t }], isError: false }],
          role: 'user',
          id: `m${++this.msg}`,
        },
      },
      { surfaceOp: 'append' },
    );
    this.ev('step/end', { turn, step });
    return r;
  }

  /** A tool unit in one step: the call and its result. Returns [call seq, result seq]. */
  unit(turn: number, step: number, callId: string, command: string, output: string, usage: DUsage): [number, number] {
    const c = this.step(turn, step, { call: { id: callId, command } }, usage);
    return [c, this.result(turn, step, callId, output)];
  }

  /** DSH's five steps: start, summary, checkpoint user/message replacing [from, to], end. */
  compaction(o: {
    id: string;
    turn: number | null;
    shadowed: number[];
    from?: number;
    to?: number;
    summary?: string;
    shadowedTokenCount?: number;
    usage?: DUsage;
    sources?: number[] | null;
    end?: Record<string, unknown>;
  }): { start: number; checkpoint: number } {
    const start = this.ev('compaction/start', { compactionId: o.id, turn: o.turn });
    const summaryText = o.summary ?? 'The user wants the import job fixed; commit e41b9c2 reordered the columns and is being reverted.';
    const from = o.from ?? (o.shadowed[0] as number);
    const to = o.to ?? (o.shadowed[o.shadowed.length - 1] as number);
    const summary = this.ev('compaction/summary', {
      compactionId: o.id,
      summary: [{ type: 'text', text: summaryText }],
      llmStreamCall: true,
      shadowedRange: { start: from, end: to },
      shadowedSeqs: o.shadowed,
      shadowedTokenCount: o.shadowedTokenCount ?? 3_200,
      provider: 'deepseek',
      model: 'deepseek-chat',
      maxTokens: 4_096,
      usage: o.usage ?? { inputTokens: 3_300, outputTokens: 60 },
    });
    const sources = o.sources === null ? undefined : (o.sources ?? [start, summary, ...o.shadowed]);
    const checkpoint = this.ev(
      'user/message',
      {
        content: [
          {
            type: 'text',
            text: 'This is an automatically generated checkpoint condensing an earlier span of the conversation to free up context.\n\n<compacted-summary>',
          },
          { type: 'text', text: summaryText },
          { type: 'text', text: '</compacted-summary>' },
        ],
        source: { kind: 'plugin', plugin: 'compact', compactionId: o.id },
        role: 'user',
        id: `m${++this.msg}`,
      },
      { surfaceOp: { op: 'replace', start: from, end: to }, ...(sources ? { sourceEventSeqs: sources } : {}) },
    );
    this.ev('compaction/end', { compactionId: o.id, turn: o.turn, ...(o.end ?? {}) });
    return { start, checkpoint };
  }

  write(): void {
    const dir = join(OUT, this.rule);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${this.variant}.dsh.jsonl`), this.lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    written.push(`${this.rule}/${this.variant}.dsh.jsonl: ${this.lines.length} lines`);
  }
}

/** Turn 1 of most DSH fixtures: the user's request and two tool units. Returns the seqs. */
function dshHistory(f: DFix, base = 3_000): { user: number; c1: number; r1: number; c2: number; r2: number } {
  f.ev('turn/start', { turn: 1 });
  const user = f.user('The nightly import job fails on CI since yesterday. Find out why and fix it; do not change the CSV column order.');
  const [c1, r1] = f.unit(
    1,
    1,
    'call_1',
    'npm test -- import',
    '× import › keeps the column order\nExpected: id,name,price\nReceived: id,price,name',
    { inputTokens: base, outputTokens: 30 },
  );
  const [c2, r2] = f.unit(
    1,
    2,
    'call_2',
    'git log -3 --oneline -- src/import.ts',
    'e41b9c2 import: sort columns alphabetically\n77a0d13 import: add price column',
    { inputTokens: base + 400, outputTokens: 28 },
  );
  return { user, c1, r1, c2, r2 };
}

// ---------------------------------------------------------------------------------------------
// The fixtures, rule by rule
// ---------------------------------------------------------------------------------------------

function pairSplit(): void {
  for (const v of ['fail', 'pass'] as const) {
    const f = new PFix(
      'PAIR_SPLIT',
      v,
      v === 'fail'
        ? 'the checkpoint replaces u1..a1: the tool call c1 leaves the view, its result t1 stays behind'
        : 'the checkpoint replaces u1..t1: the unit (a1, t1) is taken whole',
    );
    f.user('u1', 'Why does the import job fail? Do not change the CSV column order.');
    f.unit('1', 'npm test -- import', '× import › keeps the column order', { input: 6, cacheRead: 20_000, cacheWrite: 900, output: 40 });
    f.ask(
      { id: 'a2', role: 'assistant', blocks: [text('The column order changed in e41b9c2.')] },
      { input: 6, cacheRead: 20_906, cacheWrite: 300, output: 20 },
    );
    const source = v === 'fail' ? ['u1', 'a1'] : ['u1', 'a1', 't1'];
    f.compact({ id: 'cmp_1', source, sourceTokens: 21_000, output: 120 });
    f.user('u2', 'Revert that line.');
    f.ask({ id: 'a4', role: 'assistant', blocks: [text('Reverted.')] }, { input: 6, cacheRead: 2_000, cacheWrite: 200, output: 10 });
    f.write();
  }
  for (const v of ['fail', 'pass'] as const) {
    const f = new DFix(
      'PAIR_SPLIT',
      v,
      v === 'fail'
        ? 'the checkpoint replaces the user message and the tool call, and keeps the tool result'
        : 'the checkpoint replaces the user message and the whole tool unit',
    );
    const h = dshHistory(f);
    f.ev('step/start', { turn: 1, step: 3 });
    f.ev('assistant/chunk', {
      turn: 1,
      step: 3,
      chunk: {
        type: 'finish',
        reason: { kind: 'error', failure: { code: 'CONTEXT_WINDOW_EXCEEDED', message: 'request exceeded the model context window' } },
      },
    });
    const shadowed = v === 'fail' ? [h.user, h.c1] : [h.user, h.c1, h.r1];
    f.compaction({ id: 'cmp-1', turn: 1, shadowed });
    f.step(1, 3, { text: 'Reverting e41b9c2.' }, { inputTokens: 900, outputTokens: 12 });
    f.ev('turn/end', { turn: 1, reason: { kind: 'completed' } });
    f.write();
  }
}

function systemHead(): void {
  for (const v of ['fail', 'pass'] as const) {
    const f = new PFix(
      'SYSTEM_HEAD_COMPACTED',
      v,
      v === 'fail'
        ? 'the system prompt is the item at surface position 0 (header system: []) and the compacted range starts with it'
        : 'the compacted range starts after the system item, which stays at position 0',
      { system: 'surface' },
    );
    f.item({ id: 'sys', role: 'system', blocks: SYSTEM });
    history(f);
    f.compact({ id: 'cmp_1', source: v === 'fail' ? ['sys', ...SRC] : SRC });
    f.user('u2', 'Go on.');
    f.ask(
      { id: 'a4', role: 'assistant', blocks: [text('Reverting the column sort.')] },
      { input: 6, cacheRead: 1_500, cacheWrite: 300, output: 20 },
    );
    f.write();
  }
  for (const v of ['fail', 'pass'] as const) {
    const f = new DFix(
      'SYSTEM_HEAD_COMPACTED',
      v,
      v === 'fail'
        ? 'the system/message at surface position 0 is shadowed by the checkpoint'
        : 'the checkpoint shadows the history after the system/message',
    );
    f.ev('turn/start', { turn: 1 });
    const sys = f.system('You are a DSH agent. Work in /work/app.');
    const user = f.user('Fix the import job; keep the CSV column order.');
    const [c1, r1] = f.unit(1, 1, 'call_1', 'npm test -- import', '× import › keeps the column order', {
      inputTokens: 3_000,
      outputTokens: 30,
    });
    f.compaction({ id: 'cmp-1', turn: null, shadowed: v === 'fail' ? [sys, user, c1, r1] : [user, c1, r1] });
    f.step(1, 2, { text: 'Reverting e41b9c2.' }, { inputTokens: 600, outputTokens: 12 });
    f.write();
  }
}

function protectedText(): void {
  const constraint =
    'Make the import job pass. Constraints: keep the CSV column order id,name,price; do not touch the fixtures in test/data; never force-push.';
  for (const v of ['fail', 'pass'] as const) {
    const f = new PFix(
      'PROTECTED_TEXT_SHORTENED',
      v,
      v === 'fail'
        ? "budget shortening cut the user's constraints (a pruned copy of u1)"
        : 'budget shortening cut only an over-long tool result (a pruned copy of t1)',
    );
    f.user('u1', constraint);
    const log = Array.from({ length: 40 }, (_, i) => `row ${i + 1}: id,price,name`).join('\n');
    f.unit('1', 'node scripts/import.js --dry-run', log, { input: 6, cacheRead: 20_000, cacheWrite: 4_000, output: 40 });
    f.add({ kind: 'record', type: 'compaction/prune', summary: 'pressure 0.82: shortening before the summary request' });
    if (v === 'fail') {
      f.item(
        {
          id: 'u1~short',
          role: 'user',
          blocks: [text(`${constraint.slice(0, 40)}\n[… 95 characters omitted …]`)],
          derivation: { kind: 'pruned', of: 'u1', head: 40, tail: 0, omitted: constraint.length - 40, unit: 'chars' },
        },
        { op: 'replace', from: 'u1', to: 'u1' },
      );
    } else {
      f.item(
        {
          id: 't1~short',
          role: 'tool',
          blocks: [{ type: 'tool_result', callId: 'c1', content: [text(`${log.slice(0, 100)}\n[… omitted …]\n${log.slice(-60)}`)] }],
          derivation: { kind: 'pruned', of: 't1', head: 100, tail: 60, omitted: log.length - 160, unit: 'chars' },
        },
        { op: 'replace', from: 't1', to: 't1' },
      );
    }
    f.ask(
      { id: 'a2', role: 'assistant', blocks: [text('The importer writes price before name.')] },
      { input: 6, cacheRead: 21_000, cacheWrite: 200, output: 20 },
    );
    f.write();
  }
  for (const v of ['fail', 'pass'] as const) {
    const f = new DFix(
      'PROTECTED_TEXT_SHORTENED',
      v,
      v === 'fail'
        ? "a compaction/prune is followed by a shorter copy of the user's message replacing it"
        : 'a compaction/prune is followed by a pruned tool/result; the plan (todo/write) is untouched',
    );
    f.ev('turn/start', { turn: 1 });
    const user = f.user(constraint);
    f.ev('todo/write', {
      todos: [
        { content: 'Find the reordering commit', status: 'in_progress' },
        { content: 'Revert it', status: 'pending' },
      ],
    });
    const big = Array.from({ length: 400 }, (_, i) => `row ${i + 1}: id,price,name`).join('\n');
    const [, r1] = f.unit(1, 1, 'call_1', 'node scripts/import.js --dry-run', big, { inputTokens: 3_000, outputTokens: 30 });
    f.ev('compaction/prune', {
      shadowedRange: { start: v === 'fail' ? user : r1, end: v === 'fail' ? user : r1 },
      shadowedSeqs: [v === 'fail' ? user : r1],
      shadowedTokenCount: v === 'fail' ? 40 : 2_400,
    });
    if (v === 'fail') {
      f.ev(
        'user/message',
        { content: [{ type: 'text', text: 'Make the import job pass.' }], source: { kind: 'user' }, role: 'user', id: 'm-short' },
        { surfaceOp: { op: 'replace', start: user, end: user }, sourceEventSeqs: [user] },
      );
    } else {
      f.ev(
        'tool/result',
        {
          turn: 1,
          step: 1,
          message: {
            source: { kind: 'tool', callId: 'call_1' },
            content: [
              {
                type: 'tool-result',
                toolCallId: 'call_1',
                content: [{ type: 'text', text: `${big.slice(0, 200)}\n\n[... tool result middle pruned ...]\n\n${big.slice(-80)}` }],
                isError: false,
              },
            ],
            role: 'user',
            id: 'm-pruned',
          },
        },
        { surfaceOp: { op: 'replace', start: r1, end: r1 }, sourceEventSeqs: [r1] },
      );
    }
    f.step(1, 2, { text: 'The importer writes price before name.' }, { inputTokens: 1_200, outputTokens: 20 });
    f.write();
  }
}

function incompleteSummary(): void {
  for (const v of ['fail', 'pass'] as const) {
    const f = new PFix(
      'INCOMPLETE_SUMMARY_ACCEPTED',
      v,
      v === 'fail'
        ? 'the summarizer stopped at its 2,000-token ceiling (finish reason length) and the harness committed the cut-off text anyway'
        : 'the summarizer finished naturally (end_turn) before the commit',
    );
    history(f);
    f.compact({
      id: 'cmp_1',
      source: SRC,
      maxOutput: 2_000,
      output: v === 'fail' ? 2_000 : 420,
      finish: v === 'fail' ? LENGTH : STOP,
      summary:
        v === 'fail'
          ? '## Objective\nFix the import job without changing the CSV column order.\n## Evidence\n- e41b9c2 sorts the col'
          : undefined,
    });
    f.user('u2', 'Go on.');
    f.ask(
      { id: 'a4', role: 'assistant', blocks: [text('Reverting the sort.')] },
      { input: 6, cacheRead: 2_400, cacheWrite: 300, output: 20 },
    );
    f.write();
  }
}

function emptySummary(): void {
  const full =
    '{"session_intent":"Fix the nightly import job","files_touched":["src/import.ts"],"decisions":["revert the column sort of e41b9c2"],"pending_questions":[],"next_steps":["rerun npm test -- import"]}';
  const partial = '{"session_intent":"Fix the nightly import job","files_touched":["src/import.ts"]}';
  for (const v of ['fail', 'pass'] as const) {
    const f = new PFix(
      'EMPTY_SUMMARY',
      v,
      v === 'fail'
        ? "the committed JSON summary lacks the required fields decisions, pending_questions and next_steps (the Conversation Compaction article's schema)"
        : 'the committed JSON summary has every required field',
    );
    history(f);
    f.compact({ id: 'cmp_1', source: SRC, summary: v === 'fail' ? partial : full });
    f.ask({ id: 'a4', role: 'assistant', blocks: [text('Continuing.')] }, { input: 6, cacheRead: 2_400, cacheWrite: 300, output: 20 });
    f.write();
  }
  for (const v of ['fail', 'pass'] as const) {
    const f = new DFix(
      'EMPTY_SUMMARY',
      v,
      v === 'fail'
        ? 'compaction/summary returned no text, and the checkpoint was committed with an empty <compacted-summary>'
        : 'compaction/summary has text',
    );
    const h = dshHistory(f);
    f.compaction({
      id: 'cmp-1',
      turn: 1,
      shadowed: [h.user, h.c1, h.r1],
      summary: v === 'fail' ? '' : undefined,
      usage: { inputTokens: 3_300, outputTokens: v === 'fail' ? 0 : 60 },
    });
    f.step(1, 3, { text: 'Reverting e41b9c2.' }, { inputTokens: 1_000, outputTokens: 12 });
    f.write();
  }
}

function summaryNotSmaller(): void {
  for (const v of ['fail', 'pass'] as const) {
    const f = new PFix(
      'SUMMARY_NOT_SMALLER',
      v,
      v === 'fail'
        ? 'the summary took 650 output tokens for a source the harness priced at 400 tokens'
        : 'the summary took 300 output tokens for a source of 40,000 tokens',
    );
    history(f, 1_000, 100);
    f.compact({ id: 'cmp_1', source: SRC, sourceTokens: v === 'fail' ? 400 : 40_000, output: v === 'fail' ? 650 : 300 });
    f.ask({ id: 'a4', role: 'assistant', blocks: [text('Continuing.')] }, { input: 6, cacheRead: 900, cacheWrite: 100, output: 20 });
    f.write();
  }
  for (const v of ['fail', 'pass'] as const) {
    const f = new DFix(
      'SUMMARY_NOT_SMALLER',
      v,
      v === 'fail'
        ? 'the summary (120 output tokens) replaced a range DSH priced at 40 shadowed tokens'
        : 'the summary (60 output tokens) replaced a range of 3,200 shadowed tokens',
    );
    const h = dshHistory(f);
    f.compaction({
      id: 'cmp-1',
      turn: 1,
      shadowed: [h.user, h.c1, h.r1],
      shadowedTokenCount: v === 'fail' ? 40 : 3_200,
      usage: { inputTokens: 3_300, outputTokens: v === 'fail' ? 120 : 60 },
    });
    f.step(1, 3, { text: 'Reverting e41b9c2.' }, { inputTokens: 1_000, outputTokens: 12 });
    f.write();
  }
}

function grewContext(): void {
  for (const v of ['fail', 'pass'] as const) {
    const f = new PFix(
      'COMPACTION_GREW_CONTEXT',
      v,
      v === 'fail'
        ? 'the last request before the compaction sent 157,000 tokens; the first after it 158,400 (re-injected files outweighed the summary)'
        : 'the first request after the compaction sent 14,200 tokens',
    );
    const ctx = history(f, 130_000);
    f.compact({ id: 'cmp_1', source: SRC, preTokens: ctx + 6 });
    if (v === 'fail') {
      f.item({
        id: 'u1+',
        role: 'user',
        meta: true,
        blocks: [text('<re-read file="src/import.ts">…</re-read>')],
        derivation: { kind: 'reinjected', of: ['t1'] },
      });
    }
    f.ask(
      { id: 'a4', role: 'assistant', blocks: [text('Reverting the sort.')] },
      v === 'fail' ? { input: 158_400, output: 20 } : { input: 14_200, output: 20 },
    );
    f.write();
  }
  for (const v of ['fail', 'pass'] as const) {
    const f = new DFix(
      'COMPACTION_GREW_CONTEXT',
      v,
      v === 'fail'
        ? 'usage before the compaction: 5,000 input tokens; after it: 5,200'
        : 'usage before the compaction: 5,000 input tokens; after it: 1,200',
    );
    const h = dshHistory(f, 4_600);
    f.compaction({ id: 'cmp-1', turn: 1, shadowed: [h.user, h.c1, h.r1] });
    f.step(1, 3, { text: 'Reverting e41b9c2.' }, { inputTokens: v === 'fail' ? 5_200 : 1_200, outputTokens: 12 });
    f.write();
  }
}

function summaryGrowth(): void {
  for (const v of ['fail', 'pass'] as const) {
    const f = new PFix(
      'SUMMARY_GROWTH',
      v,
      v === 'fail'
        ? 'three successive summaries of 900, 1,700 and 3,100 output tokens'
        : 'three successive summaries of 900, 850 and 1,000 output tokens',
    );
    const sizes = v === 'fail' ? [900, 1_700, 3_100] : [900, 850, 1_000];
    let prev: string | null = null;
    sizes.forEach((out, i) => {
      const n = i + 1;
      f.user(`u${n}`, `Step ${n} of the migration.`);
      f.unit(`${n}`, `npm run migrate -- --step ${n}`, `step ${n}: ok`, { input: 6, cacheRead: 150_000, cacheWrite: 2_000, output: 40 });
      const source = [...(prev ? [prev, `b${n - 1}`] : []), `u${n}`, `a${n}`, `t${n}`];
      f.compact({ id: `cmp_${n}`, source, output: out, sourceTokens: 150_000, checkpointId: `k${n}` });
      f.ask(
        { id: `b${n}`, role: 'assistant', blocks: [text(`Step ${n} done.`)] },
        { input: 6, cacheRead: 20_000 + out, cacheWrite: 100, output: 10 },
      );
      prev = `k${n}`;
    });
    f.write();
  }
}

function noProvenance(): void {
  for (const v of ['fail', 'pass'] as const) {
    const f = new PFix(
      'NO_PROVENANCE',
      v,
      v === 'fail'
        ? 'the checkpoint cites u2, which it did not replace (it stays in the view)'
        : 'the checkpoint cites its start, its summary and every item it replaced',
    );
    history(f);
    f.user('u2', 'Also keep the header row.');
    const extra = v === 'fail' ? f.seqOf('u2') : [];
    const start = f.add({ kind: 'compaction/start', id: 'cmp_1', trigger: 'auto', source: SRC });
    const sum = f.add({
      kind: 'compaction/summary',
      id: 'cmp_1',
      summary: [text('## Objective\nFix the import job.')],
      source: SRC,
      sourceTokens: 30_000,
      finish: STOP,
      usage: { input: 30_000, output: 80 },
    });
    f.add({
      kind: 'item',
      item: {
        id: 'k1',
        role: 'user',
        blocks: [text('<compacted-summary>\n## Objective\nFix the import job.\n</compacted-summary>')],
        derivation: { kind: 'checkpoint', compactionId: 'cmp_1', covers: SRC },
      },
      op: { op: 'replace', from: 'u1', to: 'a3' },
      sources: [start, sum, ...f.seqOf(...SRC), ...extra],
    });
    f.add({ kind: 'compaction/end', id: 'cmp_1', outcome: 'committed' });
    f.ask(
      { id: 'a4', role: 'assistant', blocks: [text('Keeping the header row.')] },
      { input: 6, cacheRead: 1_500, cacheWrite: 300, output: 20 },
    );
    f.write();
  }
  for (const v of ['fail', 'pass'] as const) {
    const f = new DFix(
      'NO_PROVENANCE',
      v,
      v === 'fail'
        ? 'the checkpoint user/message has no sourceEventSeqs: it cannot prove what it displaced'
        : 'the checkpoint cites compaction/start, compaction/summary and every shadowed seq',
    );
    const h = dshHistory(f);
    f.compaction({ id: 'cmp-1', turn: 1, shadowed: [h.user, h.c1, h.r1], sources: v === 'fail' ? null : undefined });
    f.step(1, 3, { text: 'Reverting e41b9c2.' }, { inputTokens: 1_000, outputTokens: 12 });
    f.write();
  }
}

/** A MapReduce compaction over u1..a5 (five tool units) with the given segmentation and extra events. */
function mapreduceFixture(rule: string, v: Variant, note: string, plan: (f: PFix, source: string[]) => { mapSeqs: number[] }): void {
  const f = new PFix(rule, v, note, { route: { provider: 'zai', model: 'glm-5.3-flash', window: 1_000_000, maxOutput: 32_000 } });
  f.user('u1', 'Port the CSV writer to the Sink trait. Keep the column order.');
  for (let i = 1; i <= 3; i++)
    f.unit(`${i}`, `cat src/part${i}.rs`, `// src/part${i}.rs (${100 * i} lines)`, {
      input: 6,
      cacheRead: 100_000 * i,
      cacheWrite: 60_000,
      output: 30,
    });
  f.user('u9', 'Keep Writer::new as a deprecated alias.');
  const source = ['u1', 'a1', 't1', 'a2', 't2', 'a3', 't3'];
  const start = f.add({
    kind: 'compaction/start',
    id: 'cmp_7',
    trigger: 'auto',
    strategy: 'mapreduce',
    source,
    policy: { window: 1_000_000, triggerRatio: 0.8, rawTailRatio: 0.2 },
  });
  const { mapSeqs } = plan(f, source);
  const final = [text('## Objective\nPort the CSV writer to Sink.\n## Constraints\n- Keep the column order.')];
  const red = f.add({
    kind: 'mapreduce/reduce',
    compactionId: 'cmp_7',
    level: 0,
    inputs: [0, 1],
    output: final,
    final: true,
    finish: STOP,
    usage: { input: 900, output: 60 },
  });
  f.add({
    kind: 'item',
    item: {
      id: 'k7',
      role: 'user',
      origin: 'Compaction',
      blocks: final,
      derivation: { kind: 'checkpoint', compactionId: 'cmp_7', covers: source },
    },
    op: { op: 'insert', before: 'u9' },
    sources: [start, ...mapSeqs, red, ...f.seqOf(...source)],
  });
  f.add({ kind: 'compaction/end', id: 'cmp_7', outcome: 'committed', postTokens: 2_400 });
  f.ask({ id: 'a9', role: 'assistant', blocks: [text('Writer::new stays as a deprecated alias.')] }, { input: 2_500, output: 20 });
  f.write();
}

function map(f: PFix, ordinal: number, items: string[], summary = `Map ${ordinal}: ${items.join(', ')}.`): number {
  f.add({
    kind: 'request',
    id: `map-${ordinal}-${items[0]}`,
    purpose: 'map',
    compactionId: 'cmp_7',
    route: { model: 'qwen3:8b', window: 32_768, maxOutput: 2_000 },
    input: { items, instruction: null },
  });
  f.add({
    kind: 'response',
    request: `map-${ordinal}-${items[0]}`,
    finish: { raw: 'stop', reason: 'stop' },
    usage: { input: 4_000, output: 100 },
  });
  return f.add({
    kind: 'mapreduce/map',
    compactionId: 'cmp_7',
    ordinal,
    status: 'accepted',
    summary: [text(summary)],
    finish: { raw: 'stop', reason: 'stop' },
    request: `map-${ordinal}-${items[0]}`,
  });
}

function coverage(): void {
  const whole = [
    { ordinal: 0, items: ['u1', 'a1', 't1'] },
    { ordinal: 1, items: ['a2', 't2', 'a3', 't3'] },
  ];
  const stage = (f: PFix, segments: { ordinal: number; items: string[] }[]) =>
    f.add({ kind: 'mapreduce/staging', compactionId: 'cmp_7', version: 3, fingerprint: 'xxh3:4c22d8e1f0b97a65', segments });
  const run = (f: PFix, segments: { ordinal: number; items: string[] }[]) => {
    stage(f, segments);
    return { mapSeqs: segments.map((s) => map(f, s.ordinal, s.items)) };
  };
  for (const v of ['fail', 'pass'] as const) {
    mapreduceFixture(
      'COVERAGE_GAP',
      v,
      v === 'fail'
        ? 'the segments skip a2 and t2: no map summarises them, yet the checkpoint replaces them'
        : 'the segments cover u1..t3 exactly once',
      (f) =>
        run(
          f,
          v === 'fail'
            ? [
                { ordinal: 0, items: ['u1', 'a1', 't1'] },
                { ordinal: 1, items: ['a3', 't3'] },
              ]
            : whole,
        ),
    );
    mapreduceFixture(
      'COVERAGE_OVERLAP',
      v,
      v === 'fail' ? 'a2 and t2 are in both segments: they are summarised twice' : 'the segments are disjoint',
      (f) =>
        run(
          f,
          v === 'fail'
            ? [
                { ordinal: 0, items: ['u1', 'a1', 't1', 'a2', 't2'] },
                { ordinal: 1, items: ['a2', 't2', 'a3', 't3'] },
              ]
            : whole,
        ),
    );
    mapreduceFixture(
      'ITEM_CUT',
      v,
      v === 'fail'
        ? 'the legacy byte-sliced packing cut t2 in two: segments name "t2@0-4096" and "t2@4096-7310", which are no items'
        : 'every segment is a range of whole items',
      (f) =>
        run(
          f,
          v === 'fail'
            ? [
                { ordinal: 0, items: ['u1', 'a1', 't1', 'a2', 't2@0-4096'] },
                { ordinal: 1, items: ['t2@4096-7310', 'a3', 't3'] },
              ]
            : whole,
        ),
    );
  }
}

function staleStaging(): void {
  for (const v of ['fail', 'pass'] as const) {
    mapreduceFixture(
      'STALE_STAGING_REUSED',
      v,
      v === 'fail'
        ? 'the source was replaced (new fingerprint); map 1 was re-run but map 0 from the old staging was reused'
        : 'after the source was replaced, both segments were mapped again',
      (f) => {
        const segs = [
          { ordinal: 0, items: ['u1', 'a1', 't1'] },
          { ordinal: 1, items: ['a2', 't2', 'a3', 't3'] },
        ];
        f.add({ kind: 'mapreduce/staging', compactionId: 'cmp_7', version: 3, fingerprint: 'xxh3:1111aaaa2222bbbb', segments: segs });
        const old0 = map(f, 0, segs[0]?.items ?? [], 'Map 0 (old source): the writer had 120 lines.');
        f.add({ kind: 'lifecycle', boundary: 'process-start' });
        f.add({ kind: 'mapreduce/staging', compactionId: 'cmp_7', version: 3, fingerprint: 'xxh3:9999cccc8888dddd', segments: segs });
        const m0 = v === 'fail' ? old0 : map(f, 0, segs[0]?.items ?? []);
        const m1 = map(f, 1, segs[1]?.items ?? []);
        return { mapSeqs: [m0, m1] };
      },
    );
  }
}

function auditFailed(): void {
  for (const v of ['fail', 'pass'] as const) {
    mapreduceFixture(
      'AUDIT_FAILED_COMMITTED',
      v,
      v === 'fail'
        ? 'the audit of the final candidate failed and the candidate was committed anyway'
        : 'the failed audit led to a correction, audited again and passed, before the commit',
      (f) => {
        const segs = [
          { ordinal: 0, items: ['u1', 'a1', 't1'] },
          { ordinal: 1, items: ['a2', 't2', 'a3', 't3'] },
        ];
        f.add({ kind: 'mapreduce/staging', compactionId: 'cmp_7', version: 3, fingerprint: 'xxh3:4c22d8e1f0b97a65', segments: segs });
        const mapSeqs = segs.map((s) => map(f, s.ordinal, s.items));
        f.add({
          kind: 'mapreduce/audit',
          compactionId: 'cmp_7',
          verdict: 'fail',
          issues: ['map 1: the deprecated alias Writer::new is missing'],
        });
        if (v === 'pass') {
          f.add({
            kind: 'mapreduce/correction',
            compactionId: 'cmp_7',
            n: 1,
            accepted: true,
            output: [text('## Objective\nPort the CSV writer to Sink.\n- Keep Writer::new as a deprecated alias.')],
          });
          f.add({ kind: 'mapreduce/audit', compactionId: 'cmp_7', verdict: 'pass' });
        }
        return { mapSeqs };
      },
    );
  }
}

function mapreduceLimits(): void {
  for (const v of ['fail', 'pass'] as const) {
    mapreduceFixture(
      'MAPREDUCE_LIMIT_EXCEEDED',
      v,
      v === 'fail'
        ? 'the candidate kept failing its audit and was corrected three times (cosh stops non-converging output after two corrections)'
        : 'one correction, audited again, passed',
      (f) => {
        const segs = [
          { ordinal: 0, items: ['u1', 'a1', 't1'] },
          { ordinal: 1, items: ['a2', 't2', 'a3', 't3'] },
        ];
        f.add({ kind: 'mapreduce/staging', compactionId: 'cmp_7', version: 3, fingerprint: 'xxh3:4c22d8e1f0b97a65', segments: segs });
        const mapSeqs = segs.map((s) => map(f, s.ordinal, s.items));
        const rounds = v === 'fail' ? 3 : 1;
        for (let n = 1; n <= rounds; n++) {
          f.add({
            kind: 'mapreduce/audit',
            compactionId: 'cmp_7',
            verdict: 'fail',
            issues: [`round ${n}: the deprecated alias Writer::new is missing`],
          });
          f.add({
            kind: 'mapreduce/correction',
            compactionId: 'cmp_7',
            n,
            accepted: true,
            output: [text(`## Objective\nPort the CSV writer to Sink (correction ${n}).`)],
          });
        }
        f.add({ kind: 'mapreduce/audit', compactionId: 'cmp_7', verdict: 'pass' });
        return { mapSeqs };
      },
    );
  }
}

function budgetExceeded(): void {
  const policy: BudgetPolicy = {
    name: 'rind compact_boundary_v3',
    window: 200_000,
    triggerRatio: 0.9,
    outputReserve: 8_192,
    headroom: 10_000,
  };
  for (const v of ['fail', 'pass'] as const) {
    const f = new PFix(
      'BUDGET_EXCEEDED',
      v,
      v === 'fail'
        ? 'after the commit the next request sent 186,000 tokens, over the budget of 181,808 (200,000 − 8,192 − 10,000)'
        : 'after the commit the next request sent 41,000 tokens, well inside the budget',
    );
    f.user('u1', 'The nightly import job fails on CI since yesterday. Find out why and fix it; do not change the CSV column order.');
    f.unit('1', 'npm test -- import', '× import › keeps the column order', { input: 6, cacheRead: 165_000, cacheWrite: 5_000, output: 40 });
    f.unit('2', 'git log -3 --oneline -- src/import.ts', 'e41b9c2 import: sort columns alphabetically', {
      input: 6,
      cacheRead: 170_000,
      cacheWrite: 5_000,
      output: 38,
    });
    f.unit('3', 'cat fixtures/import/big.csv', 'id,name,price\n… (52,000 rows)', {
      input: 6,
      cacheRead: 175_000,
      cacheWrite: 13_000,
      output: 30,
    });
    f.compact({ id: 'cmp_1', source: ['u1', 'a1', 't1'], policy, preTokens: 188_006 });
    f.ask({ id: 'a4', role: 'assistant', blocks: [text('Reverting the sort.')] }, { input: v === 'fail' ? 186_000 : 41_000, output: 20 });
    f.write();
  }
}

function rawTail(): void {
  const policy: BudgetPolicy = { name: 'preemptive 70 %, last 4 messages kept', window: 200_000, triggerRatio: 0.7, rawTailMessages: 4 };
  for (const v of ['fail', 'pass'] as const) {
    const f = new PFix(
      'RAW_TAIL_VIOLATED',
      v,
      v === 'fail'
        ? 'the policy keeps the last 4 messages verbatim, but the checkpoint summarised all but the newest one'
        : 'the checkpoint summarised the older history and kept the last 4 messages verbatim',
    );
    history(f, 100_000);
    f.unit('4', 'git revert --no-edit e41b9c2', '[main 5d1f0aa] Revert "import: sort columns alphabetically"', {
      input: 6,
      cacheRead: 127_000,
      cacheWrite: 900,
      output: 30,
    });
    f.user('u5', 'Run the whole suite before you push.');
    f.compact({
      id: 'cmp_1',
      source: v === 'fail' ? [...SRC, 'a4', 't4'] : ['u1', 'a1', 't1'],
      policy,
      trigger: 'preemptive',
      preTokens: 141_000,
    });
    f.ask(
      { id: 'a5', role: 'assistant', blocks: [text('Running the whole suite.')] },
      { input: 6, cacheRead: 9_000, cacheWrite: 400, output: 20 },
    );
    f.write();
  }
}

function orphanStart(): void {
  for (const v of ['fail', 'pass'] as const) {
    const f = new PFix(
      'ORPHAN_COMPACTION_START',
      v,
      v === 'fail'
        ? 'compaction cmp_1 never ends in this lifecycle (its lock is held) and cmp_2 starts anyway'
        : 'every compaction of this lifecycle is closed by its compaction/end',
    );
    history(f);
    if (v === 'fail') {
      f.add({ kind: 'compaction/start', id: 'cmp_1', trigger: 'auto', source: SRC });
      f.add({
        kind: 'request',
        id: 'cmp_1-summary',
        purpose: 'compaction',
        compactionId: 'cmp_1',
        input: { items: SRC, instruction: null },
      });
    } else {
      f.compact({
        id: 'cmp_1',
        source: SRC,
        commit: false,
        finish: LENGTH,
        output: 8_192,
        end: { outcome: 'rejected', error: { message: 'summarizer response is incomplete (finish reason: length)' } },
      });
    }
    f.item({ id: 'cmd', role: 'user', origin: 'user-command', blocks: [text('/compact')] }, { op: 'log' });
    f.compact({ id: 'cmp_2', source: SRC, trigger: 'manual' });
    f.ask(
      { id: 'a4', role: 'assistant', blocks: [text('Compacted; continuing.')] },
      { input: 6, cacheRead: 1_500, cacheWrite: 300, output: 20 },
    );
    f.write();
  }
  for (const v of ['fail', 'pass'] as const) {
    const f = new DFix(
      'ORPHAN_COMPACTION_START',
      v,
      v === 'fail'
        ? "an unmatched compaction/start after the newest session/end-seed: this lifecycle's lock is held"
        : 'the unmatched compaction/start is in the inherited prefix, before session/end-seed: stale evidence (info only)',
    );
    const h = dshHistory(f);
    if (v === 'pass') {
      f.ev('compaction/start', { compactionId: 'parent-cmp', turn: 1 });
      f.ev('session/end-seed', {});
    } else {
      f.ev('session/end-seed', {});
    }
    f.ev('turn/end', { turn: 1, reason: { kind: 'completed' } });
    f.ev('turn/start', { turn: 2 });
    f.user('Now revert e41b9c2.');
    f.step(2, 1, { text: 'Reverting.' }, { inputTokens: 3_800, outputTokens: 12 });
    if (v === 'fail') f.ev('compaction/start', { compactionId: 'child-cmp', turn: 2 });
    void h;
    f.write();
  }
}

function midHistory(): void {
  for (const v of ['fail', 'pass'] as const) {
    const f = new PFix(
      'MID_HISTORY_MUTATION',
      v,
      v === 'fail'
        ? 'the harness masked t1 while a2, t2 and a3 came after it: a mid-history change that invalidates the cached prefix'
        : 'the model masked its newest tool result (t2) right after asking for it: a tail change, cache-neutral',
    );
    f.user('u1', 'Why does the import job fail?');
    f.unit('1', 'npm test -- import', '× import › keeps the column order', { input: 6, cacheRead: 20_000, cacheWrite: 4_000, output: 40 });
    f.unit('2', 'git log -3 --oneline -- src/import.ts', 'e41b9c2 import: sort columns alphabetically', {
      input: 6,
      cacheRead: 24_000,
      cacheWrite: 900,
      output: 38,
    });
    if (v === 'fail') {
      f.ask(
        { id: 'a3', role: 'assistant', blocks: [text('e41b9c2 is the culprit.')] },
        { input: 6, cacheRead: 24_900, cacheWrite: 300, output: 20 },
      );
      f.add({ kind: 'mask', items: ['t1'], by: 'harness', reference: [text('[result superseded; see call c2]')] });
      f.ask(
        { id: 'a4', role: 'assistant', blocks: [text('Reverting it.')] },
        { input: 6, cacheRead: 20_000, cacheWrite: 5_100, output: 12 },
      );
    } else {
      f.ask(
        {
          id: 'a3',
          role: 'assistant',
          blocks: [
            text('I have what I need from that output.'),
            { type: 'tool_call', id: 'c3', name: 'mask_tool_result', input: '{"call_id":"c2"}' },
          ],
        },
        { input: 6, cacheRead: 24_900, cacheWrite: 300, output: 30 },
      );
      f.add({ kind: 'mask', items: ['t2'], by: 'model', reference: [text('[tool result c2 masked by the model]')] });
      f.item({ id: 't3', role: 'tool', blocks: [{ type: 'tool_result', callId: 'c3', content: [text('Masked c2.')] }] });
      f.ask(
        { id: 'a4', role: 'assistant', blocks: [text('Reverting e41b9c2.')] },
        { input: 6, cacheRead: 24_000, cacheWrite: 400, output: 12 },
      );
    }
    f.write();
  }
  for (const v of ['fail', 'pass'] as const) {
    const f = new DFix(
      'MID_HISTORY_MUTATION',
      v,
      v === 'fail'
        ? 'the tool-result pruner shortened the first tool result while a later unit followed it'
        : 'the tool-result pruner shortened the newest tool result',
    );
    f.ev('turn/start', { turn: 1 });
    f.user('Why does the import job fail?');
    const big = Array.from({ length: 400 }, (_, i) => `row ${i + 1}: id,price,name`).join('\n');
    const [, r1] = f.unit(1, 1, 'call_1', 'node scripts/import.js --dry-run', big, { inputTokens: 3_000, outputTokens: 30 });
    let target = r1;
    if (v === 'fail')
      f.unit(1, 2, 'call_2', 'git log -3 --oneline', 'e41b9c2 import: sort columns alphabetically', {
        inputTokens: 6_000,
        outputTokens: 28,
      });
    else target = r1;
    f.ev('compaction/prune', { shadowedRange: { start: target, end: target }, shadowedSeqs: [target], shadowedTokenCount: 2_400 });
    f.ev(
      'tool/result',
      {
        turn: 1,
        step: 1,
        message: {
          source: { kind: 'tool', callId: 'call_1' },
          content: [
            {
              type: 'tool-result',
              toolCallId: 'call_1',
              content: [{ type: 'text', text: `${big.slice(0, 200)}\n\n[... tool result middle pruned ...]\n\n${big.slice(-80)}` }],
              isError: false,
            },
          ],
          role: 'user',
          id: 'm-pruned',
        },
      },
      { surfaceOp: { op: 'replace', start: target, end: target }, sourceEventSeqs: [target] },
    );
    f.step(1, 3, { text: 'The importer writes price before name.' }, { inputTokens: 1_200, outputTokens: 20 });
    f.write();
  }
}

function retryLoop(): void {
  for (const v of ['fail', 'pass'] as const) {
    const f = new PFix(
      'RETRY_LOOP',
      v,
      v === 'fail'
        ? "one user turn; each tool dispatch starts the same failing compaction again: 2,000-token output ceiling, finish reason length, three times (cosh's summary_failure_loop)"
        : 'the automatic compaction fails once and is deferred for the rest of the turn; the next user turn gets a fresh attempt, which commits',
    );
    f.user('u1', 'Port the parser to the new AST.');
    let ctx = 160_000;
    const fail = (n: number, source: string[]) => {
      f.compact({
        id: `cmp_${n}`,
        source,
        maxOutput: 2_000,
        output: 2_000,
        finish: LENGTH,
        commit: false,
        end: {
          outcome: 'rejected',
          error: { code: 'INCOMPLETE', message: 'LLM compaction failed: summarizer response is incomplete (finish reason: length)' },
        },
      });
    };
    const src: string[] = ['u1'];
    for (let i = 1; i <= 3; i++) {
      f.unit(`${i}`, `cat src/parser/part${i}.rs`, `// part ${i}`, { input: 6, cacheRead: ctx, cacheWrite: 2_000, output: 30 });
      ctx += 2_000;
      src.push(`a${i}`, `t${i}`);
      if (v === 'fail' || i === 1) fail(i, [...src]);
    }
    if (v === 'pass') {
      f.ask(
        { id: 'a4', role: 'assistant', blocks: [text('Parser ported; 3 files changed.')] },
        { input: 6, cacheRead: ctx, cacheWrite: 500, output: 30 },
      );
      f.user('u2', 'Thanks. Now the statements.');
      f.compact({ id: 'cmp_4', source: [...src, 'a4'], trigger: 'auto' });
    }
    f.ask(
      { id: 'a9', role: 'assistant', blocks: [text('Continuing.')] },
      { input: 6, cacheRead: v === 'pass' ? 3_000 : ctx, cacheWrite: 500, output: 20 },
    );
    f.write();
  }
  for (const v of ['fail', 'pass'] as const) {
    const f = new DFix(
      'RETRY_LOOP',
      v,
      v === 'fail'
        ? 'in turn 1, compaction fails twice with the same INCOMPLETE error and 2,000-token ceiling, one tool call apart'
        : 'compaction fails once in turn 1; turn 2 gets a fresh attempt that commits',
    );
    const h = dshHistory(f, 100_000);
    const failOnce = (id: string) => {
      f.ev('compaction/start', { compactionId: id, turn: 1 });
      f.ev('compaction/summary-error', {
        compactionId: id,
        error: { code: 'INCOMPLETE', message: 'summarizer response is incomplete (finish reason: length)' },
        shadowedSeqs: [h.user, h.c1, h.r1],
        maxTokens: 2_000,
        provider: 'deepseek',
        model: 'deepseek-chat',
        usage: { inputTokens: 100_500, outputTokens: 2_000 },
      });
      f.ev('compaction/end', { compactionId: id, turn: 1, error: 'summarizer response is incomplete (finish reason: length)' });
    };
    failOnce('cmp-1');
    f.unit(1, 3, 'call_3', 'cat src/import.ts', 'export function importRows(...)', { inputTokens: 101_000, outputTokens: 30 });
    if (v === 'fail') {
      failOnce('cmp-2');
      f.step(1, 4, { text: 'Reverting e41b9c2.' }, { inputTokens: 101_800, outputTokens: 12 });
    } else {
      f.step(1, 4, { text: 'Reverting e41b9c2.' }, { inputTokens: 101_800, outputTokens: 12 });
      f.ev('turn/end', { turn: 1, reason: { kind: 'completed' } });
      f.ev('turn/start', { turn: 2 });
      f.user('Thanks. Push it.');
      f.compaction({ id: 'cmp-3', turn: 2, shadowed: [h.user, h.c1, h.r1, h.c2, h.r2] });
      f.step(2, 1, { text: 'Pushed.' }, { inputTokens: 2_000, outputTokens: 8 });
    }
    f.write();
  }
}

function triggerMissed(): void {
  const policy: BudgetPolicy = { name: 'compaction-basic', window: 200_000, triggerRatio: 0.8, rawTailRatio: 0.16 };
  for (const v of ['fail', 'pass'] as const) {
    const f = new PFix(
      'TRIGGER_MISSED',
      v,
      v === 'fail'
        ? 'the trigger is 160,000 tokens (0.8 × 200,000); request r3 sent 160,006 and nothing compacted before it or before the next request'
        : 'request r3 sent 160,006 tokens and the harness compacted right after it',
    );
    f.user('u1', 'Port the parser to the new AST.');
    f.unit('1', 'cat src/parser/a.rs', '// a.rs', { input: 6, cacheRead: 140_000, cacheWrite: 2_000, output: 30 });
    f.unit('2', 'cat src/parser/b.rs', '// b.rs', { input: 6, cacheRead: 142_000, cacheWrite: 8_000, output: 30 });
    f.unit('3', 'cat src/parser/c.rs', '// c.rs', { input: 6, cacheRead: 150_000, cacheWrite: 10_000, output: 30 });
    if (v === 'pass') f.compact({ id: 'cmp_1', source: ['u1', 'a1', 't1', 'a2', 't2'], policy, preTokens: 160_006 });
    f.unit(
      '4',
      'cat src/parser/d.rs',
      '// d.rs',
      v === 'pass'
        ? { input: 6, cacheRead: 30_000, cacheWrite: 2_000, output: 30 }
        : { input: 6, cacheRead: 160_000, cacheWrite: 8_000, output: 30 },
    );
    if (v === 'fail') f.compact({ id: 'cmp_1', source: ['u1', 'a1', 't1', 'a2', 't2', 'a3', 't3'], policy, preTokens: 168_006 });
    f.ask({ id: 'a9', role: 'assistant', blocks: [text('Parser ported.')] }, { input: 6, cacheRead: 20_000, cacheWrite: 500, output: 20 });
    f.write();
  }
}

function windowChanged(): void {
  for (const v of ['fail', 'pass'] as const) {
    const f = new PFix(
      'WINDOW_CHANGED',
      v,
      v === 'fail'
        ? "the agent's window drops from 200,000 to 32,768 tokens after the compaction, same model (the summarizer's window leaked into the agent's budget)"
        : 'the window changes after the compaction because the user switched to another model',
    );
    history(f);
    f.compact({ id: 'cmp_1', source: SRC });
    f.add({ kind: 'header', route: v === 'fail' ? { window: 32_768 } : { model: 'claude-haiku-4-5', window: 32_768 } });
    f.ask(
      { id: 'a4', role: 'assistant', blocks: [text('Reverting the sort.')] },
      { input: 6, cacheRead: 1_500, cacheWrite: 300, output: 20 },
    );
    f.write();
  }
  for (const v of ['fail', 'pass'] as const) {
    const f = new DFix(
      'WINDOW_CHANGED',
      v,
      v === 'fail'
        ? 'request/context reports 128,000 tokens before the compaction and 64,000 after it, for the same model'
        : 'the window changes after the compaction together with the model (deepseek-reasoner)',
    );
    const h = dshHistory(f);
    f.compaction({ id: 'cmp-1', turn: 1, shadowed: [h.user, h.c1, h.r1] });
    if (v === 'fail') f.context(64_000);
    else {
      f.ev('request/header', {
        header: {
          config: { provider: 'deepseek', model: 'deepseek-reasoner', maxTokens: 8_192 },
          tools: [{ name: 'bash', description: 'Run a command.', parameters: { type: 'object' } }],
        },
        reason: 'change',
      });
      f.context(64_000, 'deepseek-reasoner');
    }
    f.step(1, 3, { text: 'Reverting e41b9c2.' }, { inputTokens: 1_000, outputTokens: 12 });
    f.write();
  }
}

function silentFallback(): void {
  for (const v of ['fail', 'pass'] as const) {
    const f = new PFix(
      'SILENT_FALLBACK',
      v,
      v === 'fail'
        ? 'the summarizer failed and the harness truncated the middle of the history with no marker in the view'
        : 'the summarizer failed and the harness truncated the middle loudly: a visible marker stands in the dropped range',
    );
    history(f, 150_000);
    f.add({ kind: 'compaction/start', id: 'cmp_1', trigger: 'reactive', source: ['a1', 't1', 'a2', 't2'] });
    f.add({
      kind: 'request',
      id: 'cmp_1-summary',
      purpose: 'compaction',
      compactionId: 'cmp_1',
      input: { items: ['a1', 't1', 'a2', 't2'], instruction: null },
    });
    f.add({ kind: 'response', request: 'cmp_1-summary', error: { code: 'overloaded_error', message: 'Overloaded' } });
    f.add({ kind: 'compaction/summary-error', id: 'cmp_1', error: { code: 'overloaded_error', message: 'Overloaded' } });
    if (v === 'fail') {
      f.add({ kind: 'drop', items: ['a1', 't1', 'a2', 't2'], reason: 'truncation', compactionId: 'cmp_1' });
    } else {
      f.item(
        {
          id: 'm1',
          role: 'user',
          origin: 'lossy-truncate',
          blocks: [text('[earlier history truncated; compactor unavailable]')],
          derivation: { kind: 'marker', of: ['a1', 't1', 'a2', 't2'], fallback: 'truncation' },
        },
        { op: 'replace', from: 'a1', to: 't2' },
      );
    }
    f.add({
      kind: 'compaction/end',
      id: 'cmp_1',
      outcome: 'fallback',
      fallback: { kind: 'truncation', marker: v === 'pass' },
      error: { code: 'overloaded_error', message: 'Overloaded' },
    });
    f.ask(
      { id: 'a4', role: 'assistant', blocks: [text('Reverting the sort.')] },
      { input: 6, cacheRead: 60_000, cacheWrite: 300, output: 20 },
    );
    f.write();
  }
}

function halfWritten(): void {
  for (const v of ['fail', 'pass'] as const) {
    const f = new PFix(
      'HALF_WRITTEN_COMPACTION',
      v,
      v === 'fail'
        ? 'Rind-style pair: the continuation message was written, the assistant handoff never was'
        : 'Rind-style pair: continuation (replace) and handoff (insert before the kept tail) both written',
    );
    history(f);
    f.user('u2', 'Go ahead.');
    const start = f.add({ kind: 'compaction/start', id: 'cmp_1', trigger: 'auto', strategy: 'llm_inline', source: SRC });
    const handoff = '## Objective\nFix the import job.\n## Decision\n- Revert the column sort of e41b9c2.';
    const sum = f.add({
      kind: 'compaction/summary',
      id: 'cmp_1',
      summary: [text(handoff)],
      source: SRC,
      sourceTokens: 30_000,
      finish: STOP,
      usage: { input: 30_000, output: 90 },
    });
    const prov = [start, sum, ...f.seqOf(...SRC)];
    f.add({
      kind: 'item',
      item: {
        id: 'k1',
        role: 'user',
        origin: 'continuation_user_message',
        blocks: [text('Continue from the compacted conversation state. Use the compact handoff below as the source of prior context.')],
        derivation: { kind: 'checkpoint', compactionId: 'cmp_1', covers: SRC, part: 'continuation' },
      },
      op: { op: 'replace', from: 'u1', to: 'a3' },
      sources: prov,
    });
    f.add({ kind: 'record', type: 'compact_boundary', summary: 'messages.jsonl: compact_boundary cmp_1' });
    if (v === 'pass') {
      f.add({
        kind: 'item',
        item: {
          id: 'k2',
          role: 'assistant',
          origin: 'handoff_message',
          blocks: [{ type: 'reasoning', text: '[compaction handoff]' }, text(handoff)],
          derivation: { kind: 'checkpoint', compactionId: 'cmp_1', covers: SRC, part: 'handoff' },
        },
        op: { op: 'insert', before: 'u2' },
        sources: prov,
      });
    }
    f.add({ kind: 'compaction/end', id: 'cmp_1', outcome: 'committed' });
    f.ask(
      { id: 'a4', role: 'assistant', blocks: [text('Reverting the sort.')] },
      { input: 6, cacheRead: 1_500, cacheWrite: 300, output: 20 },
    );
    f.write();
  }
  for (const v of ['fail', 'pass'] as const) {
    const f = new DFix(
      'HALF_WRITTEN_COMPACTION',
      v,
      v === 'fail'
        ? 'a checkpoint user/message names compaction cmp-9, which has no compaction/start or compaction/end'
        : 'the checkpoint sits inside its compaction/start … compaction/end bracket',
    );
    const h = dshHistory(f);
    if (v === 'fail') {
      f.ev(
        'user/message',
        {
          content: [{ type: 'text', text: '<compacted-summary>The user wants the import job fixed.</compacted-summary>' }],
          source: { kind: 'plugin', plugin: 'compact', compactionId: 'cmp-9' },
          role: 'user',
          id: 'm-ck',
        },
        { surfaceOp: { op: 'replace', start: h.user, end: h.r1 }, sourceEventSeqs: [h.user, h.c1, h.r1] },
      );
    } else {
      f.compaction({ id: 'cmp-9', turn: 1, shadowed: [h.user, h.c1, h.r1] });
    }
    f.step(1, 3, { text: 'Reverting e41b9c2.' }, { inputTokens: 1_000, outputTokens: 12 });
    f.write();
  }
}

function unknownRecords(): void {
  for (const v of ['fail', 'pass'] as const) {
    const f = new PFix(
      'UNKNOWN_RECORDS',
      v,
      v === 'fail'
        ? 'the converter kept two records it did not understand as `unknown` events (type acme/hook)'
        : 'every record was converted to a known kind (hooks as `record`)',
    );
    f.user('u1', 'Run the linter.');
    if (v === 'fail') f.add({ kind: 'unknown', type: 'acme/hook' });
    else f.add({ kind: 'record', type: 'acme/hook', summary: 'pre-tool hook: lint allowed' });
    f.unit('1', 'npm run lint', '0 problems', { input: 400, output: 20 });
    if (v === 'fail') f.add({ kind: 'unknown', type: 'acme/hook' });
    else f.add({ kind: 'record', type: 'acme/hook', summary: 'post-tool hook: ok' });
    f.ask({ id: 'a2', role: 'assistant', blocks: [text('The linter reports no problems.')] }, { input: 460, output: 12 });
    f.write();
  }
}

function pendingUser(): void {
  for (const v of ['fail', 'pass'] as const) {
    const f = new PFix(
      'PENDING_USER_SUMMARISED',
      v,
      v === 'fail'
        ? 'u2 ("also keep the header row") had not been answered when the compaction summarised it'
        : 'the compaction summarised the answered history and kept the unanswered u2 verbatim',
    );
    history(f);
    f.user('u2', 'Also keep the header row exactly as it is.');
    f.compact({ id: 'cmp_1', source: v === 'fail' ? [...SRC, 'u2'] : SRC });
    f.ask(
      { id: 'a4', role: 'assistant', blocks: [text('Reverting the sort.')] },
      { input: 6, cacheRead: 1_500, cacheWrite: 300, output: 20 },
    );
    f.write();
  }
  for (const v of ['fail', 'pass'] as const) {
    const f = new DFix(
      'PENDING_USER_SUMMARISED',
      v,
      v === 'fail'
        ? 'the checkpoint replaces the newest user message, which no assistant message has answered'
        : 'the checkpoint replaces the answered history; the newest user message stays verbatim',
    );
    const h = dshHistory(f);
    f.ev('turn/end', { turn: 1, reason: { kind: 'completed' } });
    f.ev('turn/start', { turn: 2 });
    const u2 = f.user('Also keep the header row exactly as it is.');
    f.compaction({
      id: 'cmp-1',
      turn: 2,
      shadowed: v === 'fail' ? [h.user, h.c1, h.r1, h.c2, h.r2, u2] : [h.user, h.c1, h.r1, h.c2, h.r2],
    });
    f.step(2, 1, { text: 'Keeping the header row.' }, { inputTokens: 1_000, outputTokens: 12 });
    f.write();
  }
}

function constraintLost(): void {
  for (const v of ['fail', 'pass'] as const) {
    const f = new PFix(
      'CONSTRAINT_LOST',
      v,
      v === 'fail'
        ? 'u1 said "do not change the CSV column order"; the summary that replaced it does not say so'
        : 'the summary that replaced u1 restates its constraint on the CSV column order',
    );
    history(f);
    f.compact({
      id: 'cmp_1',
      source: SRC,
      summary:
        v === 'fail'
          ? '## Objective\nFix the nightly import job.\n## Done\n- Found the commit that sorted the columns.\n## Next\n- Revert it.'
          : '## Objective\nFix the nightly import job; do not change the CSV column order.\n## Done\n- Found the commit that sorted the columns.\n## Next\n- Revert it.',
    });
    f.ask(
      { id: 'a4', role: 'assistant', blocks: [text('Reverting the sort.')] },
      { input: 6, cacheRead: 1_500, cacheWrite: 300, output: 20 },
    );
    f.write();
  }
}

// Findings inferred from a Claude Code or Codex log alone: the fixtures are those logs converted to
// Palimpsest format (the session's `harness` says which client wrote them), with the records and
// items the importers keep for the traces a failure leaves.

/** A first turn whose reply reports a context past Claude Code's 167,000-token trigger (or `context`). */
function bigTurn(f: PFix, context = 170_000): void {
  f.user('u1', 'Read the whole schema dump and list every table without a primary key.');
  f.ask(
    { id: 'a1', role: 'assistant', blocks: [text('Nine tables have no primary key; the largest is audit_log.')] },
    { input: 6, cacheRead: context - 1_006, cacheWrite: 1_000, output: 40 },
  );
}

function promptUnanswered(): void {
  for (const v of ['fail', 'pass'] as const) {
    const f = new PFix(
      'PROMPT_UNANSWERED_INFERRED',
      v,
      v === 'fail'
        ? 'past the trigger, u2 got no answer: Claude Code wrote its synthetic "No response requested." and the user sent u2 again as u3'
        : 'past the trigger, u2 is answered (the automatic compaction is not logged, but nothing was dropped)',
      { harness: 'claude-code' },
    );
    bigTurn(f);
    f.user('u2', 'Add a primary key to audit_log.');
    if (v === 'fail') {
      f.item({ id: 's1', role: 'assistant', origin: 'synthetic', blocks: [text('No response requested.')] });
      f.user('u3', 'Add a primary key to audit_log.');
    }
    f.ask(
      { id: 'a2', role: 'assistant', blocks: [text('Added an id column as the primary key of audit_log.')] },
      { input: 6, cacheRead: 9_000, cacheWrite: 900, output: 30 },
    );
    f.write();
  }
}

function apiErrorNearCompaction(): void {
  for (const v of ['fail', 'pass'] as const) {
    const f = new PFix(
      'API_ERROR_NEAR_COMPACTION',
      v,
      v === 'fail'
        ? 'past the trigger, the next request failed with the API error "Prompt is too long" (an api-error record)'
        : 'past the trigger, the next request is answered',
      { harness: 'claude-code' },
    );
    bigTurn(f, 185_000);
    f.user('u2', 'Now dump the audit_log table too.');
    if (v === 'fail') {
      const message = 'Prompt is too long: 201,338 tokens > 200,000 maximum';
      f.add({ kind: 'request', id: 'r2' });
      f.item({ id: 'e2', role: 'assistant', origin: 'api-error', blocks: [text(message)] }, { op: 'log' });
      f.add({ kind: 'response', request: 'r2', error: { code: 'invalid_request', message } });
    } else {
      f.ask(
        { id: 'a2', role: 'assistant', blocks: [text('The audit_log dump is in audit_log.sql.')] },
        { input: 6, cacheRead: 9_000, cacheWrite: 900, output: 30 },
      );
    }
    f.write();
  }
}

function compactionNotice(): void {
  for (const v of ['fail', 'pass'] as const) {
    const f = new PFix(
      'COMPACTION_FAILURE_NOTICE',
      v,
      v === 'fail'
        ? 'a /compact ended in Claude Code\'s notice "Error during compaction: …" (a system/local_command record)'
        : 'a local command ended with its ordinary output',
      { harness: 'claude-code' },
    );
    bigTurn(f, 40_000);
    f.add({
      kind: 'record',
      type: 'system/local_command',
      summary:
        v === 'fail'
          ? '<local-command-stderr>Error during compaction: API Error: Repeated 529 Overloaded errors. The API is at capacity.</local-command-stderr>'
          : '<local-command-stdout>Set model to Opus</local-command-stdout>',
    });
    f.user('u2', 'Are you still there?');
    f.ask({ id: 'a2', role: 'assistant', blocks: [text('Yes.')] }, { input: 6, cacheRead: 39_000, cacheWrite: 1_000, output: 4 });
    f.write();
  }
}

function summarySections(): void {
  for (const v of ['fail', 'pass'] as const) {
    const f = new PFix(
      'SUMMARY_SECTIONS_MISSING',
      v,
      v === 'fail'
        ? 'the committed summary is "OK": no summary block, no numbered section'
        : 'the committed summary has the summary block and its numbered sections',
      { harness: 'claude-code' },
    );
    history(f);
    f.compact({
      id: 'cmp_1',
      source: SRC,
      trigger: 'manual',
      summary:
        v === 'fail'
          ? 'OK'
          : 'Summary:\n1. Primary Request and Intent: fix the nightly import without changing the CSV column order.\n2. Key Technical Concepts: CSV import.\n7. Pending Tasks: revert the sort in e41b9c2.',
    });
    f.user('u2', 'Go ahead.');
    f.ask({ id: 'a4', role: 'assistant', blocks: [text('Reverted.')] }, { input: 6, cacheRead: 1_500, cacheWrite: 300, output: 4 });
    f.write();
  }
}

function turnFailed(): void {
  for (const v of ['fail', 'pass'] as const) {
    const f = new PFix(
      'TURN_FAILED_BEFORE_RESPONSE_INFERRED',
      v,
      v === 'fail' ? 'turn 2 ended with Codex\'s error (a task_complete record "error: …") before any model call' : 'turn 2 is answered',
      { harness: 'codex' },
    );
    f.add({ kind: 'lifecycle', boundary: 'turn-start', turn: 1 });
    bigTurn(f, 80_000);
    f.add({ kind: 'lifecycle', boundary: 'turn-end', turn: 1 });
    f.add({ kind: 'lifecycle', boundary: 'turn-start', turn: 2 });
    f.user('u2', 'A follow-up question: what did the shell print?');
    if (v === 'fail')
      f.add({
        kind: 'record',
        type: 'event_msg/task_complete',
        summary: 'error: Selected model is at capacity. Please try a different model. (server_overloaded)',
      });
    else
      f.ask(
        { id: 'a2', role: 'assistant', blocks: [text('It printed hello.')] },
        { input: 6, cacheRead: 9_000, cacheWrite: 900, output: 5 },
      );
    f.add({ kind: 'lifecycle', boundary: 'turn-end', turn: 2 });
    f.write();
  }
}

// ---------------------------------------------------------------------------------------------

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
for (const make of [
  pairSplit,
  systemHead,
  protectedText,
  incompleteSummary,
  emptySummary,
  summaryNotSmaller,
  grewContext,
  summaryGrowth,
  noProvenance,
  coverage,
  staleStaging,
  budgetExceeded,
  rawTail,
  orphanStart,
  midHistory,
  retryLoop,
  triggerMissed,
  windowChanged,
  silentFallback,
  halfWritten,
  unknownRecords,
  pendingUser,
  auditFailed,
  mapreduceLimits,
  promptUnanswered,
  apiErrorNearCompaction,
  compactionNotice,
  summarySections,
  turnFailed,
  constraintLost,
])
  make();
writeFileSync(join(OUT, 'README.md'), readme());
console.log(written.join('\n'));

function readme(): string {
  return `# Diagnostics fixtures

Written by \`scripts/gen-diagnostic-fixtures.ts\` (\`npx tsx scripts/gen-diagnostic-fixtures.ts\`); never edit
them by hand. One folder per rule of [docs/diagnostics.md](../../docs/diagnostics.md):

- \`fail.jsonl\` / \`pass.jsonl\`: Palimpsest format v1. The rule reports a warning or an error on
  \`fail\` and nothing above info on \`pass\`.
- \`fail.dsh.jsonl\` / \`pass.dsh.jsonl\`: the same concept in DeepSeek Harness's \`session.jsonl\` format,
  where the format can express it (the catalog runs on every importer's output).

The first line after the header of each file says what it shows (a \`record\` of type
\`fixture/note\` in Palimpsest files, the \`session/title\` in DSH files). Texts are short; token
counts are those a provider would report for the full-size session. \`test/shared/diagnostics/\`
checks every folder.
`;
}
