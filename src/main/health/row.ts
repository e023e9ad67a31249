import { epochMs } from '../../shared/model/event';
import type { Diagnostic } from '../../shared/model/diagnostic';
import { buildContext } from '../../shared/diagnostics/runner';
import { triggerLimits } from '../../shared/diagnostics/trigger';
import type { ReplayState } from '../../shared/replay/fold';
import type { RequestRecord } from '../../shared/replay/records';
import {
  type CompactionHealth,
  type FindingCount,
  INFERRED_FAILURE_RULES,
  type InferredFailure,
  type SessionHealth,
} from '../../shared/health/row';
import type { SessionInspector } from '../session/inspector';
import { SessionTokens } from '../tokens/service';
import { sessionCacheBreaks } from '../tokens/cache-breaks';

/** What the caller knows of a session beyond its log: where it was found. */
export interface RowMeta {
  readonly key: string;
  readonly path: string;
  /** The harness discovery named; else the importer's format. */
  readonly harness?: string;
  /** The project discovery named; else the session event's working directory. */
  readonly project?: string | null;
}

const isAgent = (r: RequestRecord): boolean => r.purpose === 'agent' && r.input === null;

/** Models of the agent requests, the most used first (ties: first seen first). */
function modelsOf(agent: readonly RequestRecord[]): string[] {
  const n = new Map<string, number>();
  for (const r of agent) if (r.route.model) n.set(r.route.model, (n.get(r.route.model) ?? 0) + 1);
  return [...n].sort((a, b) => b[1] - a[1]).map(([m]) => m);
}

/** Events looked at for a time when no request has one (a log that times only its session record). */
const DAY_SCAN = 256;

/** The UTC day of the first request whose event (or response) has a time, else of the first event that has one. */
function firstDay(inspector: SessionInspector, state: ReplayState): string | null {
  const events = inspector.session.events;
  const day = (t: number): string => new Date(t).toISOString().slice(0, 10);
  for (const r of state.requests) {
    const t = epochMs(events.at(r.seq)?.at) ?? (r.responseSeq !== null ? epochMs(events.at(r.responseSeq)?.at) : null);
    if (t !== null) return day(t);
  }
  for (let seq = 0; seq < Math.min(events.length, DAY_SCAN); seq++) {
    const t = epochMs(events.at(seq)?.at);
    if (t !== null) return day(t);
  }
  return null;
}

function sessionEvent(inspector: SessionInspector) {
  const events = inspector.session.events;
  const n = Math.min(events.length, 64);
  for (let seq = 0; seq < n; seq++) {
    const e = events.at(seq);
    if (e?.kind === 'session') return e;
  }
  return null;
}

function findingCounts(ds: readonly Diagnostic[]): FindingCount[] {
  const n = new Map<string, FindingCount>();
  for (const d of ds) {
    const k = `${d.rule}\u0000${d.severity}`;
    const f = n.get(k);
    n.set(k, { rule: d.rule, severity: d.severity, count: (f?.count ?? 0) + 1 });
  }
  return [...n.values()].sort((a, b) => (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0));
}

/**
 * The health row of a loaded session's default branch: the figures `inspect --json` gives
 * (compactions with trigger, outcome and sizes; diagnostics), the requests above the trigger
 * TRIGGER_MISSED judges by, peak context and cache reads from the provider's usage, and the
 * prompt-cache breaks `tokens` finds (causes from the log's prefix analysis, which needs no token
 * count). `loadRuleTexts` must have run, as it does for `inspect`, so that the findings agree.
 */
export function sessionHealth(inspector: SessionInspector, meta: RowMeta): SessionHealth {
  const branch = inspector.defaultBranch;
  const state = inspector.replay(branch);
  const diagnostics = inspector.diagnostics(branch);
  const s = inspector.session;
  const head = sessionEvent(inspector);
  const agent = state.requests.filter(isAgent);

  // Requests above the trigger: the trigger of TRIGGER_MISSED, sizes the provider reported.
  const ctx = buildContext({ events: s.events, state, format: s.format });
  const limits = triggerLimits(ctx);
  let judged = 0;
  let above = 0;
  let peak: number | null = null;
  let cacheRead: number | null = null;
  for (const r of agent) {
    // As the rules measure a request (a reported 0 is a client's placeholder, not a size).
    const reported = ctx.facts.requestTokens(r)?.value ?? null;
    if (reported !== null) peak = Math.max(peak ?? 0, reported);
    if (r.usage?.cacheRead !== undefined) cacheRead = (cacheRead ?? 0) + r.usage.cacheRead;
    const limit = limits?.limitAt(r) ?? null;
    if (limit === null || reported === null) continue;
    judged++;
    if (reported >= limit) above++;
  }

  // Findings that infer a failed compaction: flag the compaction they cite, else keep them apart.
  const bySeq = new Map<number, string>();
  for (const c of state.compactions) for (const q of c.seqs) bySeq.set(q, c.id);
  const flagged = new Set<string>();
  const inferredFailures: InferredFailure[] = [];
  for (const d of diagnostics) {
    if (!INFERRED_FAILURE_RULES.has(d.rule)) continue;
    const id = d.seqs.map((q) => bySeq.get(q)).find((x) => x !== undefined);
    if (id !== undefined) flagged.add(id);
    else inferredFailures.push({ rule: d.rule, seq: d.seqs[0] ?? null });
  }
  const compactions: CompactionHealth[] = state.compactions.map((c) => ({
    id: c.id,
    seq: c.startSeq ?? c.seqs[0] ?? c.endSeq ?? 0,
    trigger: c.trigger,
    outcome: c.outcome,
    inferredFailed: flagged.has(c.id) && c.outcome !== 'failed' && c.outcome !== 'rejected',
    preTokens: c.preTokens,
    postTokens: c.postTokens,
  }));

  const tokens = new SessionTokens(inspector, { counter: null, branch });
  const breaks = sessionCacheBreaks(tokens, tokens.report()).totals;

  return {
    key: meta.key,
    path: meta.path,
    sessionId: head?.id ?? null,
    harness: meta.harness ?? (s.format === 'palimpsest' ? head?.harness : s.format) ?? 'unknown',
    project: meta.project ?? head?.cwd ?? null,
    clientVersion: head?.harnessVersion ?? null,
    models: modelsOf(agent),
    day: firstDay(inspector, state),
    requests: agent.length,
    judged,
    aboveTrigger: above,
    peakContext: peak,
    cacheReadTokens: cacheRead,
    cacheBreaks: breaks.count,
    cacheBreakTokens: breaks.tokens,
    compactions,
    inferredFailures,
    findings: findingCounts(diagnostics),
  };
}
