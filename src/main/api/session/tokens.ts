import type { ModelPrices } from '../../../shared/rerun/pinned';
import { sessionCacheBreaks } from '../../tokens/cache-breaks';
import type { CountingStatus } from '../../../shared/api/contract';
import { reportedContextTokens } from '../../../shared/model/event';
import { TOKEN_CATEGORIES, type TokenCategory } from '../../../shared/tokens/categories';
import { parsePolicySpec, PolicyError, type TokenPolicy } from '../../../shared/tokens/policy';
import { policyJson } from '../../present/tokens';
import type { SessionInspector } from '../../session/inspector';
import { createTokenCounter, type TokenCounter } from '../../tokens/pool';
import { SessionTokens } from '../../tokens/service';
import { saveSharedCountCaches, sharedCountCache } from '../../tokens/shared-cache';
import { ApiFailure } from '../sessions';
import { ReportBuilder } from './report-builder';

/**
 * Token meters for the session inspector: one SessionTokens per open session and branch, counting
 * every ref in the background (worker threads) from the first question on, answering at once with
 * what is counted and estimating the rest (labelled). The token view of docs/session-view.md, on
 * the accounting of docs/tokens.md.
 */

interface Entry {
  readonly tokens: SessionTokens;
  status: CountingStatus;
  readonly abort: AbortController;
  /** Parsed policies by spec: SessionTokens caches a report per policy object. */
  readonly policies: Map<string, TokenPolicy>;
  readonly reports: ReportBuilder;
}

/** Counting starts this long after the first question, so that the answers of the first round go out first. */
const COUNT_AFTER_MS = 250;
const entries = new WeakMap<SessionInspector, Map<string, Entry>>();
let counter: TokenCounter | null = null;

/** The counter all sessions share; its idle workers do not keep the process alive. */
function sharedCounter(): TokenCounter {
  counter ??= createTokenCounter();
  return counter;
}

/** Close the shared counter (a host shutting down); a later question creates a new one. */
export async function closeSessionTokens(): Promise<void> {
  const c = counter;
  counter = null;
  saveSharedCountCaches();
  await c?.dispose();
}

/** What a host tells the token meters: whether the session is still open, and where counts are kept between runs. */
export interface TokenHost {
  readonly alive: () => boolean;
  /** Palimpsest's cache folder, whose count store the CLI shares; none: counts live as long as the host. */
  readonly countCacheDir?: string;
  /**
   * false: answer with estimates only and count nothing (state `estimate`). For a first view, whose
   * whole session is being read: counting its texts on the same cores would hold the whole back,
   * and the whole is counted once it is in.
   */
  readonly count?: boolean;
}

function entryFor(inspector: SessionInspector, branch: string, host: TokenHost): Entry {
  const { alive } = host;
  let m = entries.get(inspector);
  if (!m) entries.set(inspector, (m = new Map()));
  const known = m.get(branch);
  if (known) return known;
  // One count cache for every open session, behind the count store the CLI keeps on disk: a
  // session counted once, by the app or by `palimpsest tokens`, is not counted again.
  const cache = sharedCountCache(host.countCacheDir);
  const tokens = new SessionTokens(inspector, { counter: sharedCounter(), branch, ...(cache ? { cache } : {}) });
  const entry: Entry = {
    tokens,
    abort: new AbortController(),
    policies: new Map(),
    status: { state: host.count === false ? 'estimate' : 'counting', refs: 0, totalRefs: 0, error: null },
    // Reports are rebuilt once counting ends (estimates before, counts after), not at every batch.
    reports: new ReportBuilder(
      tokens,
      () => (entry.status.state === 'counting' ? 0 : 1),
      alive,
      (err) => {
        entry.status = { ...entry.status, error: `the token report failed: ${err instanceof Error ? err.message : String(err)}` };
      },
    ),
  };
  m.set(branch, entry);
  if (host.count === false) return entry;
  setTimeout(() => {
    tokens
      .countAll({
        signal: entry.abort.signal,
        onProgress: (p) => {
          // A closed session stops counting: nobody will ask about it again.
          if (!alive()) entry.abort.abort(new Error('the session was closed'));
          entry.status = { state: 'counting', refs: p.refs, totalRefs: p.totalRefs, error: null };
        },
      })
      .then(
        (run) => {
          entry.status = { state: 'done', refs: run.refs, totalRefs: run.refs, error: null };
          saveSharedCountCaches();
        },
        (err: unknown) => {
          entry.status = { ...entry.status, state: 'failed', error: err instanceof Error ? err.message : String(err) };
        },
      );
  }, COUNT_AFTER_MS).unref();
  return entry;
}

function policyOf(e: Entry, spec: string | undefined): { policy: TokenPolicy; error: string | null } {
  const key = spec?.trim() ?? '';
  const known = e.policies.get(key);
  if (known) return { policy: known, error: null };
  let policy = e.tokens.defaultPolicy();
  let error: string | null = null;
  if (key !== '') {
    try {
      policy = parsePolicySpec(key, e.tokens.loggedPolicy());
    } catch (err: unknown) {
      if (!(err instanceof PolicyError)) throw err;
      error = err.message;
    }
  }
  if (error === null) e.policies.set(key, policy);
  return { policy, error };
}

export function tokenMeter(inspector: SessionInspector, branch: string, index: number, spec: string | undefined, host: TokenHost) {
  const e = entryFor(inspector, branch, host);
  const { policy, error } = policyOf(e, spec);
  const account = e.tokens.view(index, policy);
  if (!account) throw new ApiFailure('NO_REQUEST', `No request ${index} on branch ${branch}.`);
  const { report, pending } = e.reports.get(spec?.trim() ?? '', policy);
  const row = report?.requests.find((r) => r.index === index);
  const verdict = report?.policy.verdicts.find((v) => v.index === index);
  const t = account.tokens;
  const byCategory = {} as Record<TokenCategory, number>;
  TOKEN_CATEGORIES.forEach((c, i) => {
    byCategory[c] = Math.round(t.byCategory[i] as number);
  });
  const reported = reportedContextTokens(t.request.usage ?? undefined);
  const total = Math.round(t.total);
  return {
    index,
    encoding: { name: account.encoding.encoding, exact: account.encoding.exact, note: account.encoding.note ?? null },
    counting: e.status,
    total,
    uncounted: Math.round(t.estimated),
    byCategory,
    uncountable: { ...t.uncountable },
    unloggedSystem: t.unloggedSystem,
    unloggedTools: t.unloggedTools,
    maskedUnknown: t.maskedUnknown,
    reportedTokens: reported,
    ratio: reported !== null && total > 0 ? reported / total : null,
    unlogged: row?.unlogged ?? null,
    pending,
    envelope: report?.fit ? { tokens: report.fit.envelope, ratio: report.fit.ratio } : null,
    policy: policyJson(policy),
    policyError: error,
    lines: account.lines,
    verdict: verdict
      ? {
          state: verdict.state,
          size: verdict.size,
          sizeSource: verdict.sizeSource,
          measured: verdict.measured,
          fill: verdict.fill,
          wouldTrigger: verdict.wouldTrigger,
        }
      : null,
  };
}

export function tokenSeries(
  inspector: SessionInspector,
  branch: string,
  spec: string | undefined,
  host: TokenHost,
  prices: ReadonlyMap<string, ModelPrices> = new Map(),
) {
  const e = entryFor(inspector, branch, host);
  const { policy, error } = policyOf(e, spec);
  const { report, pending } = e.reports.get(spec?.trim() ?? '', policy);
  if (!report) {
    return {
      counting: e.status,
      pending,
      policy: policyJson(policy),
      policyError: error,
      points: [],
      compactions: [],
      triggers: [],
      matched: [],
      unpredicted: [],
      extra: [],
      cacheBreaks: { count: 0, tokens: 0, cost: 0, byCause: {} },
    };
  }
  const verdicts = new Map(report.policy.verdicts.map((v) => [v.index, v]));
  const state = e.tokens.state;
  const breaks = sessionCacheBreaks(e.tokens, report, prices);
  const points = report.requests.map((r) => {
    const v = verdicts.get(r.index);
    return {
      index: r.index,
      seq: r.seq,
      purpose: r.purpose,
      estimated: r.estimatedTokens,
      uncounted: r.uncounted,
      reported: r.reportedTokens,
      size: v ? v.size : null,
      window: v?.lines.window ?? r.window,
      trigger: v?.lines.trigger ?? null,
      state: v?.state ?? null,
      cacheBreak: breaks.byIndex.get(r.index) ?? null,
    };
  });
  const compactions = state.compactions.map((c) => {
    const seq = c.startSeq ?? c.seqs[0] ?? 0;
    let afterIndex: number | null = null;
    for (const r of state.requests) {
      if (r.seq >= seq) break;
      if (r.purpose === 'agent') afterIndex = r.index;
    }
    return { id: c.id, seq, afterIndex, outcome: c.outcome };
  });
  const p = report.policy;
  return {
    counting: e.status,
    pending,
    policy: policyJson(policy),
    policyError: error,
    points,
    compactions,
    triggers: [...p.triggers],
    matched: [...p.matched],
    unpredicted: [...p.unpredicted],
    extra: [...p.extra],
    cacheBreaks: breaks.totals,
  };
}
