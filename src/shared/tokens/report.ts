import { reportedContextTokens } from '../model/event';
import type { CompactionRecord } from '../replay/records';
import { CATEGORY_INDEX, TOKEN_CATEGORIES, type TokenCategory, type Uncountable } from './categories';
import type { EncodingChoice } from './encoding';
import { fitEnvelope, unloggedPart, type EnvelopeFit } from './envelope';
import { evaluatePolicy, type PolicyEvaluation, type PolicyInput, type SizeSource, type TokenPolicy } from './policy';
import { firstAfter } from '../seq-search';
import { RequestPass } from './pass';
import { comparePrefix, type PrefixAnalysis } from './prefix';
import type { RequestTokens, TokenAccountant } from './units';

/** The token account of one request, as the CLI and the API report it. */
export interface RequestRow {
  readonly index: number;
  readonly id: string;
  readonly seq: number;
  readonly purpose: string;
  readonly model: string | null;
  readonly window: number | null;
  /** Tokens of what the log shows the model saw (estimated framing included): a local count, never the provider's. */
  readonly estimatedTokens: number;
  /** Part of estimatedTokens not counted yet (estimated from characters) or capped by the encoder: 0 when fully counted. */
  readonly uncounted: number;
  readonly byCategory: Readonly<Record<TokenCategory, number>>;
  readonly uncountable: Readonly<Uncountable>;
  readonly unloggedSystem: boolean;
  readonly unloggedTools: boolean;
  readonly maskedUnknown: number;
  /** input + cache reads + cache writes as the provider reported it (authoritative); null without usage. */
  readonly reportedTokens: number | null;
  /** reported / estimated. */
  readonly ratio: number | null;
  /**
   * What the provider counted that the log does not contain: reported − k × estimated, k the fitted
   * tokenizer ratio (the unlogged envelope, plus anything else the harness sent without logging it).
   */
  readonly unlogged: number | null;
  /** Compactions of the log before this request (the envelope fit's stretch). */
  readonly stretch: number;
  readonly cache: PrefixAnalysis;
}

export interface SessionTokenReport {
  readonly encoding: EncodingChoice;
  readonly requests: readonly RequestRow[];
  /** reported ≈ E + k × counted over the agent requests with usage (null without usage). */
  readonly fit: EnvelopeFit | null;
  /** The log leaves the system prompt or the tools out of some request: the fit's E measures them. */
  readonly envelopeUnlogged: boolean;
  readonly policy: PolicyEvaluation;
  /** Requests whose figures still contain estimates. */
  readonly partial: number;
}

function categoryRecord(values: Float64Array): Record<TokenCategory, number> {
  const out = {} as Record<TokenCategory, number>;
  for (const c of TOKEN_CATEGORIES) out[c] = Math.round(values[CATEGORY_INDEX[c]] as number);
  return out;
}

/** The first seq of each compaction, ascending. */
function compactionStarts(compactions: readonly CompactionRecord[]): { seq: number; id: string }[] {
  return compactions
    .map((c) => ({ seq: c.startSeq ?? c.seqs[0] ?? Number.POSITIVE_INFINITY, id: c.id }))
    .filter((c) => Number.isFinite(c.seq))
    .sort((a, b) => a.seq - b.seq);
}

/** Requests accounted between two pauses of reportSteps. */
export const REPORT_STEP = 500;

/**
 * The whole account of a branch: every request's figures, prompt-cache analysis against the previous
 * request on the same model, the unlogged-envelope fit, and a policy evaluated on the agent requests.
 * In steps: it pauses (yields) after every REPORT_STEP requests, so that a caller on a
 * busy thread (the app's main process) can answer other questions between them — the report of a
 * session of 180,000 requests is seconds of work. Run to the end, it returns the report.
 */
export function* reportSteps(
  acc: TokenAccountant,
  encoding: EncodingChoice,
  policy: TokenPolicy,
): Generator<void, SessionTokenReport, void> {
  const state = acc.state;
  const starts = compactionStarts(state.compactions);
  const rows: RequestRow[] = [];
  const lastByModel = new Map<string, RequestTokens>();
  // The figures of the request before the last one on each model, no longer needed: the pass fills its lists again.
  const spareByModel = new Map<string, RequestTokens>();
  let partial = 0;
  let stretch = 0;
  const pass = new RequestPass(acc);
  for (let i = 0; i < state.requests.length; i++) {
    if (i > 0 && i % REPORT_STEP === 0) yield;
    const model = state.requests[i]?.route.model ?? '';
    const t = pass.next(i, spareByModel.get(model) ?? null);
    if (!t) continue;
    const r = t.request;
    while (stretch < starts.length && (starts[stretch] as { seq: number }).seq < r.seq) stretch++;
    const previous = lastByModel.get(model) ?? null;
    const cache = comparePrefix(previous, t);
    if (previous) spareByModel.set(model, previous);
    lastByModel.set(model, t);
    const reported = reportedContextTokens(r.usage ?? undefined);
    const estimatedTokens = Math.round(t.total);
    if (t.estimated > 0) partial++;
    rows.push({
      index: i,
      id: r.id,
      seq: r.seq,
      purpose: r.purpose,
      model: r.route.model ?? null,
      window: r.route.window ?? null,
      estimatedTokens,
      uncounted: Math.round(t.estimated),
      byCategory: categoryRecord(t.byCategory),
      uncountable: t.uncountable,
      unloggedSystem: t.unloggedSystem,
      unloggedTools: t.unloggedTools,
      maskedUnknown: t.maskedUnknown,
      reportedTokens: reported,
      ratio: reported !== null && estimatedTokens > 0 ? reported / estimatedTokens : null,
      unlogged: null,
      stretch,
      cache,
    });
  }

  const agent = rows.filter((r) => r.purpose === 'agent');
  const fit = fitEnvelope(
    agent
      .filter((r) => r.reportedTokens !== null)
      .map((r) => ({ counted: r.estimatedTokens, reported: r.reportedTokens as number, stretch: r.stretch })),
  );
  const envelopeUnlogged = rows.some((r) => r.unloggedSystem || r.unloggedTools);
  const stretchE = new Map<number, number>();
  for (const s of fit?.stretches ?? []) stretchE.set(s.stretch, s.envelope);
  let finished = rows;
  if (fit) {
    finished = [];
    for (const row of rows) {
      if (finished.length > 0 && finished.length % REPORT_STEP === 0) yield;
      const unlogged = row.reportedTokens !== null ? unloggedPart(fit, row.estimatedTokens, row.reportedTokens) : null;
      let cache = row.cache;
      // The provider caches what the log leaves out too: add it to the expected cached prefix.
      if ((row.unloggedSystem || row.unloggedTools) && cache.reportedCacheRead !== null && cache.previous !== null) {
        const expected = cache.sharedTokens * fit.ratio + (stretchE.get(row.stretch) ?? fit.envelope);
        cache = { ...cache, cacheReadRatio: expected > 0 ? cache.reportedCacheRead / expected : null };
      }
      finished.push({ ...row, unlogged, cache });
    }
  }

  // What each agent request leaves for the next one: its reply and the results that came back.
  const inputs: PolicyInput[] = [];
  const finishedAgent = finished.filter((r) => r.purpose === 'agent');
  let itemAt = 0;
  for (let a = 0; a < finishedAgent.length; a++) {
    if (a > 0 && a % REPORT_STEP === 0) yield;
    const row = finishedAgent[a] as RequestRow;
    const next = finishedAgent[a + 1];
    const upTo = next ? next.seq : Number.POSITIVE_INFINITY;
    while (itemAt < state.items.length && (state.items[itemAt] as { seq: number }).seq < row.seq) itemAt++;
    let reply = 0;
    let added = 0;
    for (let k = itemAt; k < state.items.length; k++) {
      const rec = state.items[k];
      if (!rec || rec.seq >= upTo) break;
      if (rec.key === null && rec.fates[0]?.fate.fate === 'dropped') continue;
      const tokens = acc.recordTokens(rec);
      if (rec.item.role === 'assistant') reply += tokens;
      else added += tokens;
    }
    const after = firstAfter(starts, row.seq);
    const c = after && after.seq < upTo ? after : undefined;
    let size: number;
    let sizeSource: SizeSource;
    let scale = 1;
    if (row.reportedTokens !== null) {
      size = row.reportedTokens;
      sizeSource = 'reported';
      scale = fit?.ratio ?? 1;
      const output = state.requests[row.index]?.usage?.output;
      if (output !== undefined) reply = output / scale;
    } else if ((row.unloggedSystem || row.unloggedTools) && fit) {
      size = Math.round(fit.ratio * row.estimatedTokens + (stretchE.get(row.stretch) ?? fit.envelope));
      sizeSource = 'estimated+envelope';
      scale = fit.ratio;
    } else {
      size = row.estimatedTokens;
      sizeSource = 'estimated';
    }
    inputs.push({
      index: row.index,
      window: row.window,
      size,
      sizeSource,
      next: Math.round(size + scale * (reply + added)),
      compactedAfter: c?.id ?? null,
    });
  }
  return { encoding, requests: finished, fit, envelopeUnlogged, policy: evaluatePolicy(policy, inputs), partial };
}
