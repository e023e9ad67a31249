import { eventsOfKind } from '../../../shared/model/event-log';
import type { JoinedCompaction, JoinedPurpose, JoinedRequest, RequestSource, WireJoin } from '../../../shared/model/wire-join';
import type { RequestRecord } from '../../../shared/replay/records';
import type { SessionInspector } from '../../session/inspector';
import { type NormRequest, normalizeBody } from '../../wire/normalize';
import { type Pairing, loggedRequests, pairRequests } from '../../wire/pair';
import type { Capture, WireCall } from '../exchange';
import { codexRequestKind, isSummarizerPurpose, looksLikeAgent, summarizerMarker } from './purpose';
import { wireSessionId } from './session-id';

/*
 * Joins a session with captures of its wire traffic (see src/shared/model/wire-join.ts).
 *
 * Which exchanges are this session's: a model call whose request names a session (Claude Code and
 * Codex both send theirs) is taken when it names this one; a call that names none is taken when it
 * pairs with a logged request, or lies between the first and last calls that did, or when no call
 * of the capture names another session.
 *
 * Order: the wire's own order for what the wire has (start order), with the requests only the log
 * has put back where the log has them. When one body was sent several times in a row (retries),
 * the last attempt is the one the log recorded (`both`); the earlier ones are `wire` attempts.
 *
 * Attempts: consecutive summarizer calls between two agent requests are one compaction's attempts;
 * they belong to the log's compaction whose events lie between those two agent requests. A run of
 * attempts with no such compaction is an orphan: a compaction the log does not show at all.
 */

/** Skipped capture lines named in the join (the rest are counted). */
const SKIPPED_SHOWN = 20;

export interface JoinInput {
  readonly capture: Capture;
  readonly calls: readonly WireCall[];
}

interface Taken {
  readonly capture: number;
  readonly call: WireCall;
  readonly norm: NormRequest | null;
  readonly key: number;
}

function protocolOf(inputs: readonly JoinInput[]): string {
  for (const i of inputs) for (const c of i.calls) if (c.protocol) return c.protocol;
  return 'anthropic-messages';
}

/** The harness's id of the session, as its log records it. */
export function logSessionId(ins: SessionInspector): string | null {
  for (const e of eventsOfKind(ins.session.events, 'session')) return e.id;
  return null;
}

export async function joinCaptures(ins: SessionInspector, inputs: readonly JoinInput[], branch = ins.defaultBranch): Promise<WireJoin> {
  const protocol = protocolOf(inputs);
  const sessionId = logSessionId(ins);
  const state = ins.replay(branch);
  const logged = await loggedRequests(ins, protocol);

  // Model calls of this session (or of none), every capture, in start order.
  const candidates: Taken[] = [];
  let otherSessions = false;
  inputs.forEach((input, ci) => {
    for (const call of input.calls) {
      // Model calls, and token counting (a side call the harness makes on the same API).
      if (call.protocol === null || (call.kind !== 'model' && call.kind !== 'count-tokens')) continue;
      const sid = wireSessionId(call);
      if (sid !== null && sessionId !== null && sid !== sessionId) {
        otherSessions = true;
        continue;
      }
      candidates.push({
        capture: ci,
        call,
        norm: call.kind === 'model' ? normalizeBody(call.protocol, call.body) : null,
        key: candidates.length,
      });
    }
  });
  candidates.sort(
    (a, b) =>
      a.call.exchange.startedAt - b.call.exchange.startedAt || a.capture - b.capture || a.call.exchange.index - b.call.exchange.index,
  );
  // A body's identity for telling retries: its text (a string compare, no re-serialising).
  const entries = candidates.map((t, i) => ({
    key: i,
    norm: t.norm,
    ...(t.call.exchange.request.body !== null ? { body: t.call.exchange.request.body } : {}),
  }));
  const ordered = candidates.map((t, i) => ({ ...t, key: i }));
  const byResponseId = new Map<string, number>();
  ordered.forEach((t) => {
    if (t.call.responseId) byResponseId.set(t.call.responseId, t.key);
  });
  // A call that carries its harness's compaction prompt is a summarizer call: it never stands for a
  // logged agent request, however much of the conversation the two share.
  const summarizing = ordered.map(
    (t) => codexRequestKind(t.call.exchange.request.headers) === 'compaction' || (t.norm !== null && summarizerMarker(t.norm) !== null),
  );
  const { pairs } = pairRequests(
    entries,
    logged,
    (id) => byResponseId.get(id) ?? null,
    (w, l) => !(summarizing[w.key] && l.purpose === 'agent'),
  );

  // Keep what is this session's (see the header comment).
  const paired = pairs.map((p) => p.view !== null);
  const first = paired.indexOf(true);
  const last = paired.lastIndexOf(true);
  const keep = ordered.map(
    (t, i) => paired[i] || wireSessionId(t.call) !== null || !otherSessions || (first >= 0 && i > first && i < last),
  );

  const agentsNorm = ordered
    .filter((_, i) => pairs[i]?.view?.purpose === 'agent')
    .map((t) => t.norm)
    .filter((n): n is NormRequest => n !== null);
  const byLogSeq = new Map<number, RequestRecord>(state.requests.map((r) => [r.seq, r]));

  // The last attempt of a run of identical bodies is the logged one.
  const lastOfRun = new Map<number, number>();
  pairs.forEach((p, i) => lastOfRun.set(p.retryOf ?? p.key, i));

  type Draft = Omit<JoinedRequest, 'index' | 'retryOf'> & { readonly retryKey: number | null; readonly key: number | null };
  const wireDrafts: Draft[] = [];
  pairs.forEach((p: Pairing, i) => {
    if (!keep[i]) return;
    const t = ordered[i] as Taken;
    const onBranch = p.view !== null && p.view.branch === branch ? (byLogSeq.get(p.view.seq) ?? null) : null;
    if (p.view !== null && !onBranch) return; // another branch's request (a subagent's)
    const isLogged = onBranch !== null && lastOfRun.get(p.retryOf ?? p.key) === i;
    const source: RequestSource = isLogged ? 'both' : 'wire';
    const { purpose, why } = classify(p, t, isLogged ? onBranch : null, agentsNorm);
    wireDrafts.push({
      key: i,
      retryKey: p.retryOf,
      source,
      purpose,
      purposeWhy: why,
      status: t.call.status,
      logIndex: isLogged ? onBranch.index : null,
      logSeq: isLogged ? onBranch.seq : null,
      capture: t.capture,
      exchange: t.call.exchange.index,
      line: t.call.exchange.line,
      compactionId: isLogged ? onBranch.compactionId : null,
      verdict: isLogged && p.verdict !== 'not-in-log' ? p.verdict : null,
      firstDiff: isLogged ? (p.result?.firstDiff ?? null) : null,
      messages: isLogged ? (p.result?.messages.status ?? null) : null,
      model: t.call.model,
      finish: t.call.finish,
      usage: t.call.usage,
      error: t.call.error,
      at: t.call.exchange.startedAt,
      durationMs: t.call.durationMs,
      afterSeq: onBranch?.seq ?? null,
    });
  });

  // Merge in the requests only the log has, each before the first wire request logged after it.
  const loggedOnWire = new Set(wireDrafts.filter((d) => d.logSeq !== null).map((d) => d.logSeq as number));
  const merged: Draft[] = [];
  let li = 0;
  const logOnly = state.requests.filter((r) => !loggedOnWire.has(r.seq));
  const pushLog = (r: RequestRecord): void => {
    merged.push({
      key: null,
      retryKey: null,
      source: 'log',
      purpose: r.purpose === 'agent' ? 'agent' : isSummarizerPurpose(r.purpose) ? 'summarizer' : 'side',
      purposeWhy: 'the log says so',
      status: null,
      logIndex: r.index,
      logSeq: r.seq,
      capture: null,
      exchange: null,
      line: null,
      compactionId: r.compactionId,
      verdict: null,
      firstDiff: null,
      messages: null,
      model: r.route.model ?? null,
      finish: r.finish,
      usage: r.usage,
      error: r.error ? { code: r.error.code ?? null, message: r.error.message } : null,
      at: null,
      durationMs: null,
      afterSeq: r.seq,
    });
  };
  // The time the log gives a request (its response's record, written after the call started).
  const logAt = (r: RequestRecord): number | null => {
    const e = ins.events(r.seq, r.seq)[0];
    const t = typeof e?.at === 'number' ? e.at : typeof e?.at === 'string' ? Date.parse(e.at) : NaN;
    return Number.isFinite(t) ? t : null;
  };
  for (const d of wireDrafts) {
    if (d.logSeq !== null)
      while (li < logOnly.length && (logOnly[li] as RequestRecord).seq < d.logSeq) pushLog(logOnly[li++] as RequestRecord);
    else if (d.at !== null) {
      // A request only the wire has goes after the logged ones that happened before it.
      while (li < logOnly.length) {
        const t = logAt(logOnly[li] as RequestRecord);
        if (t === null || t > d.at) break;
        pushLog(logOnly[li++] as RequestRecord);
      }
    }
    merged.push(d);
  }
  while (li < logOnly.length) pushLog(logOnly[li++] as RequestRecord);

  // Indexes, retries, and where each wire-only request falls in the log.
  const indexOfKey = new Map<number, number>();
  merged.forEach((d, i) => {
    if (d.key !== null) indexOfKey.set(d.key, i);
  });
  let lastSeq: number | null = null;
  const requests: JoinedRequest[] = merged.map((d, i) => {
    if (d.logSeq !== null) lastSeq = d.logSeq;
    const { key: _k, retryKey, ...rest } = d;
    return { ...rest, index: i, retryOf: retryKey === null ? null : (indexOfKey.get(retryKey) ?? null), afterSeq: d.afterSeq ?? lastSeq };
  });

  const { compactions, orphans, ids } = attempts(requests, state.compactions);
  const withIds = requests.map((r) =>
    ids.has(r.index) && r.compactionId === null ? { ...r, compactionId: ids.get(r.index) as string } : r,
  );
  const captures = inputs.map((input, ci) => ({
    file: input.capture.file,
    format: input.capture.format,
    exchanges: input.capture.exchanges.length,
    taken: withIds.filter((r) => r.capture === ci).length,
    skipped: input.capture.skipped.length,
    skippedLines: input.capture.skipped.slice(0, SKIPPED_SHOWN).map((x) => ({ line: x.line, reason: x.reason })),
  }));
  return { captures, requests: withIds, compactions, orphanAttempts: orphans };
}

function classify(
  p: Pairing,
  t: Taken,
  logged: RequestRecord | null,
  agents: readonly NormRequest[],
): { purpose: JoinedPurpose; why: string } {
  if (logged) {
    if (logged.purpose === 'agent') return { purpose: 'agent', why: 'the log records it as an agent request' };
    return isSummarizerPurpose(logged.purpose)
      ? { purpose: 'summarizer', why: `the log records it as a ${logged.purpose} call` }
      : { purpose: 'side', why: `the log records it as ${logged.purpose}` };
  }
  if (p.view !== null) {
    // An earlier attempt of a logged request (the same body, sent again).
    return { purpose: p.view.purpose === 'agent' ? 'agent' : 'summarizer', why: 'an earlier attempt of a logged request' };
  }
  if (t.call.kind === 'count-tokens') return { purpose: 'side', why: 'a token-counting call' };
  const kind = codexRequestKind(t.call.exchange.request.headers);
  if (kind === 'compaction') return { purpose: 'summarizer', why: 'Codex marks it request_kind "compaction"' };
  const marker = t.norm ? summarizerMarker(t.norm) : null;
  if (marker) return { purpose: 'summarizer', why: `it carries the harness's compaction prompt ("${marker}")` };
  if (kind === 'turn') return { purpose: 'agent', why: 'Codex marks it request_kind "turn"' };
  if (t.norm && looksLikeAgent(t.norm, agents)) return { purpose: 'agent', why: "it carries the agent's system prompt and tools" };
  return { purpose: 'side', why: "neither the agent's prompt and tools nor a compaction prompt" };
}

function attempts(
  requests: readonly JoinedRequest[],
  logCompactions: readonly { id: string; startSeq: number | null; endSeq: number | null; seqs: readonly number[] }[],
): { compactions: JoinedCompaction[]; orphans: number[][]; ids: Map<number, string> } {
  // Runs of summarizer requests, with the log seqs of the agent requests around them.
  type Run = { members: number[]; before: number | null; after: number | null };
  const runs: Run[] = [];
  let prevAgent: number | null = null;
  let open: Run | null = null;
  for (const r of requests) {
    if (r.purpose === 'summarizer') {
      if (!open) runs.push((open = { members: [], before: prevAgent, after: null }));
      open.members.push(r.index);
    } else if (r.purpose === 'agent') {
      if (open) open.after = r.logSeq ?? r.afterSeq;
      open = null;
      prevAgent = r.logSeq ?? r.afterSeq ?? prevAgent;
    }
  }
  const ids = new Map<number, string>();
  // Within a run, a summarizer call the log names belongs to its compaction; a wire-only one to
  // the compaction of the call it repeats, else of the next named call (attempts come before the
  // one that was logged), else of the previous one. Two compactions can share a run: a Codex turn
  // that failed before any agent request leaves two compactions back to back.
  const unassigned: Run[] = [];
  for (const run of runs) {
    const named = run.members.map((i) => (requests[i]?.source !== 'wire' ? (requests[i]?.compactionId ?? null) : null));
    const assigned = run.members.map((i, k): string | null => {
      if (named[k]) return named[k] ?? null;
      const of = requests[i]?.retryOf;
      const viaRetry = of !== null && of !== undefined ? run.members.indexOf(of) : -1;
      if (viaRetry >= 0 && named[viaRetry]) return named[viaRetry] ?? null;
      for (let n = k + 1; n < named.length; n++) if (named[n]) return named[n] ?? null;
      for (let n = k - 1; n >= 0; n--) if (named[n]) return named[n] ?? null;
      return null;
    });
    if (assigned.every((a) => a === null)) unassigned.push(run);
    else
      run.members.forEach((i, k) => {
        if (assigned[k]) ids.set(i, assigned[k] as string);
      });
  }
  // Runs the log names nothing in: the compaction whose events lie between the agent requests around it.
  const claimed = new Set<Run>();
  const named = new Set(ids.values());
  for (const c of logCompactions) {
    if (named.has(c.id)) continue;
    const at = c.startSeq ?? c.seqs[0] ?? c.endSeq;
    if (at === null || at === undefined) continue;
    const run = unassigned.find((x) => !claimed.has(x) && (x.before === null || x.before < at) && (x.after === null || at < x.after));
    if (!run) continue;
    claimed.add(run);
    for (const i of run.members) ids.set(i, c.id);
  }
  const compactions = logCompactions.map((c) => ({
    id: c.id,
    attempts: requests.filter((r) => ids.get(r.index) === c.id).map((r) => r.index),
  }));
  const orphans = unassigned.filter((x) => !claimed.has(x)).map((x) => x.members);
  return { compactions, orphans, ids };
}
