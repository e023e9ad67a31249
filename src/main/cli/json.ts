import type { Diagnostic } from '../../shared/model/diagnostic';
import type { ModelView, RequestInfo } from '../../shared/model/view';
import type { CompactionRecord } from '../../shared/replay/records';
import type { RawItemFate } from '../../shared/replay/view';
import { requestInfo } from '../../shared/replay/view';
import type { SessionInspector } from '../session/inspector';

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
  };
}

/**
 * A compaction as JSON. `elsewhere` lists summarizer calls of the same compaction logged on other
 * branches (Claude Code logs its summarizer as a subagent file, which is its own branch).
 */
export function compactionJson(c: CompactionRecord, elsewhere: readonly { id: string; branch: string }[] = []) {
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
    finish: c.finish,
    error: c.error,
    fallback: c.fallback,
    mapreduce: c.mapreduce.stagingSeqs.length > 0 ? {
      stagings: c.mapreduce.stagingSeqs.length, maps: c.mapreduce.mapSeqs.length, repartitions: c.mapreduce.repartitionSeqs.length,
      reductions: c.mapreduce.reduceSeqs.length, rereads: c.mapreduce.rereadSeqs.length, audits: c.mapreduce.auditSeqs.length,
      corrections: c.mapreduce.correctionSeqs.length,
    } : null,
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

export function inspectJson(path: string, inspector: SessionInspector, branch = inspector.defaultBranch, estimated: readonly (number | null)[] = []) {
  const state = inspector.replay(branch);
  const diagnostics = inspector.diagnostics(branch);
  const s = inspector.session;
  return {
    palimpsest: JSON_VERSION,
    path,
    format: s.format,
    files: s.files.map((f) => ({ path: f.path, format: f.format, bytes: f.bytes, lines: f.stats.lines, records: f.stats.records, skipped: f.stats.skipped })),
    branch: state.branch,
    branches: inspector.branches.map((b) => ({ name: b.name, forkedFrom: b.forkedFrom, events: b.ownEvents, lastSeq: b.lastSeq })),
    counts: {
      events: s.events.length,
      items: state.items.length,
      requests: state.requests.length,
      compactions: state.compactions.length,
      diagnostics: countSeverities(diagnostics),
    },
    requests: state.requests.map((r, i) => requestJson(requestInfo(r), estimated[i] ?? null)),
    compactions: state.compactions.map((c) => compactionJson(c, inspector.summarizerCalls(c.id))),
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
      id: it.id, seq: it.seq, role: it.role, kind: it.kind, rendition: it.rendition, meta: it.meta,
      derivation: it.derivation, provenance: it.provenance, blocks: it.blocks,
    })),
    todo: view.todo,
    unknowns: view.unknowns,
    fates: fates.map(fateJson),
  };
}
