import type { LogEvent } from '../../../shared/model/event';
import { itemKind } from '../../../shared/model/item';
import type { CompactionRecord } from '../../../shared/replay/records';
import { compactionJson, diagnosticJson } from '../../present/json';
import type { SessionInspector } from '../../session/inspector';
import { ApiFailure } from '../sessions';
import { mapReduceDetail } from './mapreduce';
import { compactionSurvival } from './survival';
import { blocksText, hydrated, longText } from './text';

/**
 * Everything about one compaction attempt (docs/session-view.md): its bracket on the log, trigger and
 * policy, what each summarizer call received and returned (whole texts re-read from the file),
 * finish reasons, usage, errors and retries, the diagnostics that cite it, and MapReduce detail.
 */

function label(e: LogEvent): string {
  switch (e.kind) {
    case 'compaction/start':
      return `start (${e.trigger})`;
    case 'compaction/summary':
      return `summary${e.finish ? ` · ${e.finish.raw}` : ''}`;
    case 'compaction/summary-error':
      return `summary error: ${e.error.message.slice(0, 80)}`;
    case 'compaction/end':
      return `end: ${e.outcome}`;
    case 'request':
      return `request ${e.id} (${e.purpose})`;
    case 'response':
      return `response to ${e.request}${e.finish ? ` · ${e.finish.raw}` : ''}${e.error ? ' · error' : ''}`;
    case 'item':
      return `checkpoint item ${e.item.id}`;
    case 'mapreduce/staging':
      return `staging v${e.version ?? 'legacy'} (${e.segments.length} segments)`;
    case 'mapreduce/map':
      return `map #${e.ordinal}: ${e.status}`;
    case 'mapreduce/repartition':
      return `repartition ${e.attempt}`;
    case 'mapreduce/reduce':
      return `reduce level ${e.level}${e.final ? ' (final)' : ''}`;
    case 'mapreduce/reread':
      return `reread: ${e.status}`;
    case 'mapreduce/audit':
      return `audit: ${e.verdict}`;
    case 'mapreduce/correction':
      return `correction ${e.n}: ${e.accepted ? 'accepted' : 'rejected'}`;
    default:
      return e.kind;
  }
}

function find(inspector: SessionInspector, branch: string, id: string): CompactionRecord {
  const c = inspector.replay(branch).compactions.find((x) => x.id === id);
  if (!c) throw new ApiFailure('BAD_INPUT', `No compaction "${id}" on branch ${branch}.`);
  return c;
}

async function summarizerCalls(inspector: SessionInspector, branch: string, c: CompactionRecord) {
  const state = inspector.replay(branch);
  const calls = [
    ...c.requestIds.map((id) => ({ id, branch })),
    ...inspector.summarizerCalls(c.id).filter((x) => !c.requestIds.includes(x.id)),
  ];
  const out = [];
  for (const call of calls) {
    const here = state.requests.find((r) => r.id === call.id);
    const rec =
      here ??
      (call.branch !== branch && inspector.hasBranch(call.branch)
        ? inspector.replay(call.branch).requests.find((r) => r.id === call.id)
        : undefined);
    let instruction = null;
    if (rec?.input?.instruction) {
      const e = await hydrated(inspector.session, rec.seq);
      const blocks = e.kind === 'request' && e.input?.instruction ? e.input.instruction : rec.input.instruction;
      instruction = longText(blocksText(blocks));
    }
    out.push({
      index: here ? here.index : null,
      id: call.id,
      branch: here ? branch : call.branch,
      purpose: rec?.purpose ?? 'compaction',
      seq: rec?.seq ?? null,
      provider: rec?.route.provider ?? null,
      model: rec?.route.model ?? null,
      window: rec?.route.window ?? null,
      maxOutput: rec?.route.maxOutput ?? null,
      finish: rec?.finish ?? null,
      usage: rec?.usage ?? null,
      error: rec?.error ?? null,
      inputItems: rec?.input ? rec.input.items.length : null,
      instruction,
      instructionUnknown: rec?.input ? rec.input.instruction === null || rec.input.instruction === undefined : false,
    });
  }
  return out;
}

export async function compactionDetail(inspector: SessionInspector, branch: string, id: string) {
  const c = find(inspector, branch, id);
  const state = inspector.replay(branch);
  const session = inspector.session;
  const events = c.seqs.map((s) => session.events.at(s)).filter((e): e is LogEvent => e !== undefined);
  const start = events.find((e) => e.kind === 'compaction/start');

  const summaries = [];
  for (const seq of c.summarySeqs) {
    const e = await hydrated(session, seq);
    if (e.kind !== 'compaction/summary') continue;
    summaries.push({
      seq,
      text: longText(blocksText(e.summary)),
      finish: e.finish ?? null,
      usage: e.usage ?? null,
      sourceTokens: e.sourceTokens ?? null,
      request: e.request ?? null,
    });
  }
  const errors = c.summaryErrorSeqs
    .map((seq) => session.events.at(seq))
    .flatMap((e) =>
      e?.kind === 'compaction/summary-error' ? [{ seq: e.seq, error: e.error, finish: e.finish ?? null, usage: e.usage ?? null }] : [],
    );
  const checkpoints = [];
  for (const cid of c.checkpointItems) {
    const rec = state.itemById.get(cid);
    if (!rec) continue;
    const e = await hydrated(session, rec.seq);
    checkpoints.push({ id: cid, seq: rec.seq, text: longText(blocksText(e.kind === 'item' ? e.item.blocks : rec.item.blocks)) });
  }
  // The bracket on the log: its own events, the responses to its calls, and its checkpoints.
  const bracketSeqs = new Set(c.seqs);
  for (const r of state.requests) if (r.compactionId === c.id && r.responseSeq !== null) bracketSeqs.add(r.responseSeq);
  for (const k of checkpoints) bracketSeqs.add(k.seq);
  const bracket = [...bracketSeqs]
    .sort((a, b) => a - b)
    .flatMap((s) => {
      const e = session.events.at(s);
      return e ? [{ seq: s, kind: e.kind, label: label(e) }] : [];
    });
  const first = bracket[0]?.seq ?? null;
  const last = bracket[bracket.length - 1]?.seq ?? null;
  let requestBefore: number | null = null;
  let requestAfter: number | null = null;
  for (const r of state.requests) {
    if (r.purpose !== 'agent') continue;
    if (first !== null && r.seq < first) requestBefore = r.index;
    if (last !== null && r.seq > last && requestAfter === null) requestAfter = r.index;
  }
  const cited = new Set(bracketSeqs);
  const diagnostics = inspector
    .diagnostics(branch)
    .filter((d) => d.seqs.some((s) => cited.has(s)) || d.message.includes(c.id))
    .map(diagnosticJson);

  return {
    row: compactionJson(c, inspector.summarizerCalls(c.id)),
    trigger: c.trigger,
    policy: c.policy,
    preTokens: c.preTokens,
    projectedTokens: start?.kind === 'compaction/start' ? (start.projectedTokens ?? null) : null,
    source: c.source.map((sid) => {
      const rec = state.itemById.get(sid);
      return { id: sid, seq: rec?.seq ?? null, kind: rec ? itemKind(rec.item) : 'unknown', role: rec?.item.role ?? 'unknown' };
    }),
    bracket: { startSeq: c.startSeq, endSeq: c.endSeq, events: bracket, requestBefore, requestAfter },
    summarizer: await summarizerCalls(inspector, branch, c),
    summaries,
    errors,
    checkpoints,
    diagnostics,
    mapreduce:
      c.mapreduce.stagingSeqs.length + c.mapreduce.mapSeqs.length + c.mapreduce.reduceSeqs.length > 0
        ? await mapReduceDetail(inspector, branch, c)
        : null,
    survival: await compactionSurvival(inspector, branch, c.id),
  };
}
