import type { Diagnostic } from '../../../src/shared/model/diagnostic';
import type { Derivation, Item, Role } from '../../../src/shared/model/item';
import type { CallRecord, RunRecord, RunTarget } from '../../../src/shared/rerun/record';
import type { ScoredRun } from '../../../src/shared/eval/aggregate';
import type { Fact, FactsFileInput } from '../../../src/shared/eval/facts';
import { parseFacts } from '../../../src/shared/eval/facts';
import type { CellRef } from '../../../src/shared/eval/results';
import type { RunScore } from '../../../src/shared/eval/score';
import type { SourceItem } from '../../../src/shared/strategies/types';

/* Builders for the eval tests: source items, candidate views, run records, facts. */

export const TARGET: RunTarget = { compaction: 'c1' };

export function src(id: string, seq: number, role: Role, text: string): SourceItem {
  return { id, role, seq, blocks: [{ type: 'text', text }] };
}

export function call(id: string, seq: number, name: string, input: string, callId = `call-${id}`): SourceItem {
  return { id, role: 'assistant', seq, blocks: [{ type: 'tool_call', id: callId, name, input }] };
}

export function result(id: string, seq: number, text: string, callId: string): SourceItem {
  return { id, role: 'tool', seq, blocks: [{ type: 'tool_result', callId, content: [{ type: 'text', text }] }] };
}

export const kept = (s: SourceItem): Item => ({ id: s.id, role: s.role, blocks: [...s.blocks] });

export function made(id: string, text: string, derivation?: Derivation, role: Role = 'user'): Item {
  return derivation ? { id, role, blocks: [{ type: 'text', text }], derivation } : { id, role, blocks: [{ type: 'text', text }] };
}

export const checkpoint = (id: string, text: string, covers: string[]): Item =>
  made(id, text, { kind: 'checkpoint', compactionId: 'rerun', covers, part: 'summary' });

export function facts(list: FactsFileInput['facts']): Fact[] {
  const r = parseFacts({ format: 'palimpsest-facts', version: 1, facts: list }, 'test.facts.yaml');
  if (!r.ok) throw new Error(r.error);
  return r.value.facts;
}

export function diag(rule: string, severity: Diagnostic['severity']): Diagnostic {
  return { rule, severity, message: `${rule} fired`, file: null, line: null, seqs: [] };
}

export function callRecord(latencyMs: number, costUsd: number | null = null): CallRecord {
  return {
    stage: 'one-shot',
    label: 'summary',
    model: 'mock:m',
    ok: true,
    finish: { raw: 'stop', reason: 'stop' },
    usage: { input: 100, output: 10 },
    latencyMs,
    attempts: 1,
    error: null,
    sent: [],
    costUsd,
  };
}

export function runRecord(
  items: Item[] | null,
  opts: Partial<Pick<RunRecord, 'outcome' | 'diagnostics' | 'calls' | 'mock' | 'target'>> & {
    costUsd?: number | null;
    wallMs?: number;
  } = {},
): RunRecord {
  const calls = opts.calls ?? [];
  return {
    format: 'palimpsest-runs',
    v: 1,
    runId: 'r',
    batchId: 'b',
    repeat: { index: 0, of: 1 },
    at: '2026-01-01T00:00:00.000Z',
    source: { path: 'trace.jsonl', size: 1, fingerprint: 'f' },
    captures: [],
    branch: 'main',
    target: opts.target ?? TARGET,
    strategy: 's',
    options: {},
    models: [],
    mock: opts.mock ?? false,
    budget: { window: 1000, maxOutput: null },
    outcome: opts.outcome ?? (items ? 'committed' : 'failed'),
    error: null,
    summary: null,
    view: items ? { system: null, tools: null, items } : null,
    notes: [],
    tokens: { before: 100, after: items ? 50 : null, counter: 'chars/4' },
    calls,
    totals: {
      requests: calls.reduce((n, c) => n + c.attempts, 0),
      input: calls.length * 100,
      output: calls.length * 10,
      cacheRead: 0,
      cacheWrite: 0,
      costUsd: opts.costUsd === undefined ? (calls.length === 0 ? 0 : null) : opts.costUsd,
      latencyMs: calls.reduce((n, c) => n + c.latencyMs, 0),
      wallMs: opts.wallMs ?? 10,
    },
    mapreduce: null,
    diagnostics: opts.diagnostics ?? [],
  };
}

const NONE = { overall: null, constraint: null, decision: null, open_work: null, evidence: null };

/** A score with just the figures an aggregation test sets. */
type ScoreOver = Omit<Partial<RunScore>, 'recall'> & { recall?: Partial<RunScore['recall']> };

export function score(over: ScoreOver = {}): RunScore {
  return {
    v: 1,
    failed: false,
    outcome: 'committed',
    fallback: false,
    staleRejection: null,
    provenance: null,
    facts: {},
    provenanceOf: { ok: [], without: [] },
    structural: { error: 0, warning: 0, info: 0, rules: {} },
    drafts: 0,
    problems: [],
    ...over,
    recall: { ...NONE, ...over.recall },
  };
}

export function cell(over: Partial<CellRef> = {}): CellRef {
  return { key: 'k', trace: 't1', target: TARGET, strategy: 's', strategyId: 's', model: 'none', fault: null, repeat: 0, of: 1, ...over };
}

export function scored(
  c: Partial<CellRef>,
  s: ScoreOver,
  run: Parameters<typeof runRecord>[1] & { items?: Item[] | null } = {},
): ScoredRun {
  return { cell: cell(c), score: score(s), run: runRecord(run.items === undefined ? [] : run.items, run) };
}
