import type { Diagnostic } from '../../shared/model/diagnostic';
import type { ModelView, RequestInfo } from '../../shared/model/view';
import type { CompactionRecord } from '../../shared/replay/records';
import type { RawItemFate } from '../../shared/replay/view';
import { requestInfo } from '../../shared/replay/view';
import type { JoinedRequest, WireJoin } from '../../shared/model/wire-join';
import type { SessionInspector } from '../session/inspector';
import type { LoadedSession } from '../session/types';
import type { Rates } from '../../shared/forensics/survival';

/**
 * The stable `--json` shapes of the CLI (docs/cli.md). Field names and meanings only ever grow;
 * `palimpsest` is the version of these shapes.
 */
export const JSON_VERSION = 1;

/** A request as JSON; `estimatedTokens` is Palimpsest's own count of the view (inspect only), never the provider's. */
export function requestJson(r: RequestInfo, estimatedTokens: number | null = null) {
  return {
    index: r.index,
    id: r.id,
    seq: r.seq,
    purpose: r.purpose,
    compactionId: r.compactionId,
    provider: r.route.provider ?? null,
    model: r.route.model ?? null,
    window: r.route.window ?? null,
    maxOutput: r.route.maxOutput ?? null,
    reportedInputTokens: r.reportedInputTokens,
    estimatedTokens,
    outputTokens: r.usage?.output ?? null,
    usage: r.usage,
    finish: r.finish,
    error: r.error,
    responseSeq: r.responseSeq,
    source: 'log' as JoinedRequest['source'],
    status: null as number | null,
  };
}

/**
 * A request of a session joined with a capture: the log's fields where the log has the request,
 * the wire's where it has it (status, finish, usage, error of the attempt), and where it came from.
 * `index` counts the joined list; `logIndex` the log's own. `purpose` keeps the log's word for a
 * logged request and is `summarizer`, `side` or `agent` for one only the wire shows.
 */
function joinedJson(j: JoinedRequest, log: ReturnType<typeof requestJson> | null, wire: WireJoin) {
  const fromWire = j.capture !== null;
  const ctx = j.usage ? (j.usage.context ?? (j.usage.input ?? 0) + (j.usage.cacheRead ?? 0) + (j.usage.cacheWrite ?? 0)) : null;
  return {
    ...(log ?? {
      id: null,
      seq: null,
      compactionId: j.compactionId,
      provider: null,
      model: j.model,
      window: null,
      maxOutput: null,
      reportedInputTokens: ctx,
      estimatedTokens: null,
      outputTokens: j.usage?.output ?? null,
      usage: j.usage,
      finish: j.finish,
      error: j.error,
      responseSeq: null,
    }),
    index: j.index,
    logIndex: j.logIndex,
    purpose: log ? log.purpose : j.purpose,
    compactionId: log?.compactionId ?? j.compactionId,
    ...(fromWire
      ? {
          finish: j.finish,
          usage: j.usage,
          outputTokens: j.usage?.output ?? null,
          error: j.error,
          reportedInputTokens: ctx ?? log?.reportedInputTokens ?? null,
        }
      : {}),
    source: j.source,
    status: j.status,
    purposeWhy: j.purposeWhy,
    retryOf: j.retryOf,
    verdict: j.verdict,
    firstDiff: j.firstDiff,
    wire:
      j.capture === null
        ? null
        : { capture: wire.captures[j.capture]?.file ?? null, exchange: j.exchange, line: j.line, at: j.at, durationMs: j.durationMs },
  };
}

/**
 * A compaction as JSON. `elsewhere` lists summarizer calls of the same compaction logged on other
 * branches (Claude Code logs its summarizer as a subagent file, which is its own branch).
 */
export function compactionJson(
  c: CompactionRecord,
  elsewhere: readonly { id: string; branch: string }[] = [],
  attempts: readonly number[] = [],
) {
  return {
    id: c.id,
    trigger: c.trigger,
    outcome: c.outcome,
    preTokens: c.preTokens,
    postTokens: c.postTokens,
    strategy: c.strategy,
    startSeq: c.startSeq,
    endSeq: c.endSeq,
    checkpoints: c.checkpointItems,
    summarizerRequests: c.requestIds,
    summarizerRequestsElsewhere: elsewhere.filter((r) => !c.requestIds.includes(r.id)),
    /** Every summarizer attempt, as indexes into `requests`, in order (a capture adds the ones only the wire shows). */
    attempts,
    finish: c.finish,
    error: c.error,
    fallback: c.fallback,
    mapreduce:
      c.mapreduce.stagingSeqs.length > 0
        ? {
            stagings: c.mapreduce.stagingSeqs.length,
            maps: c.mapreduce.mapSeqs.length,
            repartitions: c.mapreduce.repartitionSeqs.length,
            reductions: c.mapreduce.reduceSeqs.length,
            rereads: c.mapreduce.rereadSeqs.length,
            audits: c.mapreduce.auditSeqs.length,
            corrections: c.mapreduce.correctionSeqs.length,
          }
        : null,
    seqs: c.seqs,
  };
}

export function diagnosticJson(d: Diagnostic) {
  return { rule: d.rule, severity: d.severity, message: d.message, file: d.file, line: d.line, seqs: d.seqs };
}

export function countSeverities(ds: readonly Diagnostic[]) {
  const n = { error: 0, warning: 0, info: 0 };
  for (const d of ds) n[d.severity]++;
  return n;
}

/** The files a session was read from, as `inspect --json` lists them. */
export function filesJson(files: LoadedSession['files']) {
  return files.map((f) => ({
    path: f.path,
    format: f.format,
    bytes: f.bytes,
    lines: f.stats.lines,
    records: f.stats.records,
    skipped: f.stats.skipped,
  }));
}

export function branchesJson(inspector: SessionInspector) {
  return inspector.branches.map((b) => ({ name: b.name, forkedFrom: b.forkedFrom, events: b.ownEvents, lastSeq: b.lastSeq }));
}

/** `survival`: each measured compaction's rates (src/main/session/forensics.ts); absent, compactions carry no `survival` key. */
export function inspectJson(
  path: string,
  inspector: SessionInspector,
  branch = inspector.defaultBranch,
  estimated: readonly (number | null)[] = [],
  survival?: ReadonlyMap<string, Rates>,
) {
  const state = inspector.replay(branch);
  const diagnostics = inspector.diagnostics(branch);
  const s = inspector.session;
  const wire = inspector.wire(branch);
  const logJson = state.requests.map((r, i) => requestJson(requestInfo(r), estimated[i] ?? null));
  const attemptsOf = (c: CompactionRecord): number[] => {
    if (wire) return [...(wire.compactions.find((x) => x.id === c.id)?.attempts ?? [])];
    return state.requests.filter((r) => r.compactionId === c.id && r.purpose !== 'agent').map((r) => r.index);
  };
  return {
    palimpsest: JSON_VERSION,
    path,
    format: s.format,
    files: filesJson(s.files),
    branch: state.branch,
    branches: branchesJson(inspector),
    counts: {
      events: s.events.length,
      items: state.items.length,
      requests: wire ? wire.requests.length : state.requests.length,
      compactions: state.compactions.length,
      diagnostics: countSeverities(diagnostics),
    },
    requests: wire ? wire.requests.map((j) => joinedJson(j, j.logIndex === null ? null : (logJson[j.logIndex] ?? null), wire)) : logJson,
    compactions: state.compactions.map((c) => ({
      ...compactionJson(c, inspector.summarizerCalls(c.id), attemptsOf(c)),
      // Survival of what it replaced, per anchor category (palimpsest forensics); null when it replaced nothing.
      ...(survival ? { survival: survival.get(c.id) ?? null } : {}),
    })),
    captures: wire?.captures ?? [],
    /** Runs of summarizer attempts on the wire that no compaction of the log stands for. */
    unloggedAttempts: wire?.orphanAttempts ?? [],
    diagnostics: diagnostics.map(diagnosticJson),
  };
}

export function fateJson(f: RawItemFate) {
  return { id: f.id, seq: f.seq, ...f.fate };
}

export function viewJson(path: string, branch: string, view: ModelView, fates: readonly RawItemFate[]) {
  return {
    palimpsest: JSON_VERSION,
    path,
    branch,
    request: requestJson(view.request),
    system: view.system,
    tools: view.tools,
    headerSeqs: view.headerSeqs,
    items: view.items.map((it) => ({
      id: it.id,
      seq: it.seq,
      role: it.role,
      kind: it.kind,
      rendition: it.rendition,
      meta: it.meta,
      derivation: it.derivation,
      provenance: it.provenance,
      blocks: it.blocks,
    })),
    todo: view.todo,
    unknowns: view.unknowns,
    fates: fates.map(fateJson),
  };
}
