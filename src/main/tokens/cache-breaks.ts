import { epochMs } from '../../shared/model/event';
import type { ModelPrices, PinnedModel } from '../../shared/rerun/pinned';
import { breakTotals, findCacheBreaks, type BreakTotals, type CacheBreak } from '../../shared/tokens/cache-break';
import type { SessionTokenReport } from '../../shared/tokens/report';
import type { SessionTokens } from './service';

/** Every request's prompt-cache break (by request index; absent: none) and the session's totals. */
export interface SessionCacheBreaks {
  readonly byIndex: ReadonlyMap<number, CacheBreak>;
  readonly totals: BreakTotals;
}

/**
 * The breaks of a branch's requests (src/shared/tokens/cache-break.ts), with each request's time
 * read from its log line: replay does not keep times, and only the requests need them.
 */
/**
 * The last breaks found per report: the app asks for the token series again every second while
 * counting runs, and reading every request's time from its line each time would be the same work.
 */
const found = new WeakMap<SessionTokenReport, { readonly prices: string; readonly breaks: SessionCacheBreaks }>();

export function sessionCacheBreaks(
  tokens: SessionTokens,
  report: SessionTokenReport,
  prices: ReadonlyMap<string, ModelPrices> = new Map(),
): SessionCacheBreaks {
  const key = JSON.stringify([...prices]);
  const hit = found.get(report);
  if (hit?.prices === key) return hit.breaks;
  const breaks = computeBreaks(tokens, report, prices);
  found.set(report, { prices: key, breaks });
  return breaks;
}

function computeBreaks(tokens: SessionTokens, report: SessionTokenReport, prices: ReadonlyMap<string, ModelPrices>): SessionCacheBreaks {
  const events = tokens.inspector.session.events;
  const requests = tokens.state.requests;
  const rows = report.requests.map((r) => {
    const rec = requests[r.index];
    const responseSeq = rec?.responseSeq ?? null;
    const at = epochMs(events.at(r.seq)?.at) ?? (responseSeq !== null ? epochMs(events.at(responseSeq)?.at) : null);
    return { index: r.index, model: r.model, usage: rec?.usage ?? null, at, cache: r.cache };
  });
  const all = findCacheBreaks(rows, prices);
  const byIndex = new Map<number, CacheBreak>();
  all.forEach((b, i) => {
    if (b) byIndex.set((rows[i] as { index: number }).index, b);
  });
  return { byIndex, totals: breakTotals(all) };
}

/** The prices of pinned models (the re-run settings' chain), by model id: the first pinned price of a model wins. */
export function pinnedPrices(models: readonly PinnedModel[]): Map<string, ModelPrices> {
  const out = new Map<string, ModelPrices>();
  for (const m of models) if (m.prices && !out.has(m.model)) out.set(m.model, m.prices);
  return out;
}
