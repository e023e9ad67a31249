import type { Usage } from '../model/event';
import type { ModelPrices } from '../rerun/pinned';
import type { ChangeCause, PrefixAnalysis } from './prefix';

/*
 * Prompt-cache breaks and their causes. A request's cache read falls short of what the request
 * before it (on the same model) made cacheable: that prefix was computed, and paid for, again.
 * Only the provider's usage says a break happened; the log says why, when it can:
 *
 * - `ttl`: the time between the two requests passed the cache's lifetime. Anthropic keeps a
 *   prefix 5 minutes, or 1 hour when it was written with the longer lifetime (the usage report
 *   splits the writes, Usage.cacheWrite1h); OpenAI and Gemini keep an idle prefix for minutes and at
 *   most about an hour. A gap past every lifetime is certain; a gap past the shortest only, when
 *   the lifetime is not recorded, is marked uncertain.
 * - `model`: the first request on a model after another one: caches are per model.
 * - `system`, `tools`: the system prompt or the tool schemas changed (as the log records them).
 * - `compaction`: a compaction (or a truncation, a drop, a re-injection) rewrote the history
 *   before the end of what was cached.
 * - `masked`: an item before the tail was masked or pruned.
 * - `rewind`: this request's history is a prefix of the previous one's (a rewind, a rollback).
 * - `unexplained`: the log shows no change before the shortfall. The provider evicted or did not
 *   route to its cache, a cache breakpoint moved, or something the log does not record changed
 *   (Claude Code does not log its system prompt); the log cannot tell these apart.
 *
 * The figures are the provider's; the cause comes from the log's prefix analysis (./prefix.ts).
 */

export const BREAK_CAUSES = ['ttl', 'model', 'system', 'tools', 'compaction', 'masked', 'rewind', 'unexplained'] as const;
export type BreakCause = (typeof BREAK_CAUSES)[number];

export interface CacheBreak {
  readonly cause: BreakCause;
  /** Tokens the previous request made cacheable (up to this request's own size) that were not read from the cache. */
  readonly tokens: number;
  /** What re-computing them cost beyond a cache read, in USD, under the given prices; null when unpriced. */
  readonly cost: number | null;
  /** The request compared with (index), or null for a model change with no earlier request on this model. */
  readonly previous: number | null;
  /** What was cacheable and what was read, in tokens. */
  readonly expected: number;
  readonly read: number;
  /** Milliseconds between the two requests by the log's timestamps; null when either has none. */
  readonly gapMs: number | null;
  /** False when the cause rests on an assumption the log cannot check (a lifetime it does not record). */
  readonly certain: boolean;
  /** One sentence for a reader. */
  readonly why: string;
}

export interface BreakInput {
  readonly index: number;
  readonly model: string | null;
  readonly usage: Usage | null;
  /** The request's time by the log (epoch milliseconds), or null. */
  readonly at: number | null;
  /** The prefix analysis against the previous request on the same model. */
  readonly cache: PrefixAnalysis;
}

export interface BreakTotals {
  readonly count: number;
  readonly tokens: number;
  /** Null when any break is unpriced: a partial sum would under-report. */
  readonly cost: number | null;
  readonly byCause: Readonly<Partial<Record<BreakCause, { readonly count: number; readonly tokens: number }>>>;
}

/**
 * Shortfalls below this many tokens are not breaks: neither provider caches a prefix shorter than
 * 1,024 tokens, OpenAI caches in blocks of 128, and on real Claude Code logs the few shortfalls of
 * a few hundred tokens (7 of 986 request pairs of the corpus) sit at the very end of the prefix.
 */
export const MIN_BREAK_TOKENS = 1_024;

const MINUTE = 60_000;
const SHORT_LIFETIME = 5 * MINUTE;
const LONG_LIFETIME = 60 * MINUTE;

/** Anthropic-style caching writes explicitly (cacheWrite reported); otherwise the provider caches prefixes by itself. */
const explicit = (u: Usage): boolean => u.cacheWrite !== undefined;

function promptTokens(u: Usage): number {
  return (u.input ?? 0) + (u.cacheRead ?? 0) + (u.cacheWrite ?? 0);
}

/** What a request left in the cache for the next one: its reads and writes, or (implicit caching) its whole prompt. */
function cacheable(u: Usage): number {
  return explicit(u) ? (u.cacheRead ?? 0) + (u.cacheWrite ?? 0) : promptTokens(u);
}

const PREFIX_CAUSE: Partial<Record<ChangeCause, BreakCause>> = {
  system: 'system',
  tools: 'tools',
  compaction: 'compaction',
  truncation: 'compaction',
  drop: 'compaction',
  reinjection: 'compaction',
  mask: 'masked',
  unmask: 'masked',
  prune: 'masked',
  shorter: 'rewind',
};

const minutes = (ms: number): string => `${(ms / MINUTE).toFixed(ms < 10 * MINUTE ? 1 : 0)} min`;

/**
 * The cache lifetime in force for a model's prefix: long (1 h) or short (5 min) when the usage
 * reports split the writes by lifetime, null when they never did.
 */
class Lifetimes {
  private readonly byModel = new Map<string, boolean>();

  see(model: string, u: Usage): void {
    if (u.cacheWrite1h === undefined || (u.cacheWrite ?? 0) === 0) return;
    this.byModel.set(model, u.cacheWrite1h > 0);
  }

  long(model: string): boolean | null {
    return this.byModel.get(model) ?? null;
  }
}

function ttlCause(gapMs: number | null, long: boolean | null, isExplicit: boolean): { certain: boolean; why: string } | null {
  if (gapMs === null || gapMs <= SHORT_LIFETIME) return null;
  if (gapMs > LONG_LIFETIME)
    return { certain: true, why: `${minutes(gapMs)} passed since the previous request, more than any cache lifetime` };
  if (isExplicit && long === false)
    return { certain: true, why: `${minutes(gapMs)} passed since the previous request; the prefix was cached for 5 minutes` };
  if (isExplicit && long === true) return null;
  return {
    certain: false,
    why: `${minutes(gapMs)} passed since the previous request, more than the shortest cache lifetime (5 minutes); the log does not record which lifetime applied`,
  };
}

function describe(cause: BreakCause, c: PrefixAnalysis): string {
  const at = c.firstChange ? ` (at ${c.firstChange.unit})` : '';
  switch (cause) {
    case 'system':
      return `the system prompt changed${at}`;
    case 'tools':
      return `the tool schemas changed${at}`;
    case 'compaction':
      return `the history was rewritten before the cached prefix ended${at}: ${c.firstChange?.cause ?? 'compaction'}`;
    case 'masked':
      return `an item before the tail was ${c.firstChange?.cause === 'prune' ? 'pruned' : 'masked'}${at}`;
    case 'rewind':
      return 'the history is a prefix of the previous request’s (a rewind or rollback)';
    default:
      return 'the log shows no change before the shortfall: the provider did not reuse its cache, a cache breakpoint moved, or something the log does not record changed';
  }
}

/** Extra cost of re-computing `tokens` instead of reading them from the cache; null when the prices do not cover it. */
function breakCost(tokens: number, u: Usage, prices: ModelPrices | undefined): number | null {
  if (!prices || prices.cacheRead === undefined) return null;
  // Explicit caching writes the re-computed prefix again (at the write price, as far as the request wrote); the rest is input.
  const written = explicit(u) ? Math.min(tokens, u.cacheWrite ?? 0) : 0;
  if (written > 0 && prices.cacheWrite === undefined) return null;
  const perToken = (written * (prices.cacheWrite ?? 0) + (tokens - written) * prices.input - tokens * prices.cacheRead) / 1_000_000;
  return Math.max(0, perToken);
}

/**
 * The break of every request (null: none, or unknown because the request reports no cache read),
 * in the order given (the requests of one branch, as the token report lists them). `prices` maps
 * a model id to its prices; the key `*` applies to every model not named.
 */
export function findCacheBreaks(rows: readonly BreakInput[], prices: ReadonlyMap<string, ModelPrices> = new Map()): (CacheBreak | null)[] {
  const byIndex = new Map<number, BreakInput>();
  const lifetimes = new Lifetimes();
  const out: (CacheBreak | null)[] = [];
  let last: BreakInput | null = null;
  // A provider that caches by itself shows it by reading from its cache. One that reports a cache
  // read of 0 on every request of a model (a local or third-party model behind an OpenAI-style
  // API) shows no cache at all: a shortfall there is no evidence of a break.
  const reads = new Set<string>();
  for (const r of rows) if ((r.usage?.cacheRead ?? 0) > 0) reads.add(r.model ?? '');
  for (const row of rows) {
    const u = row.usage;
    const model = row.model ?? '';
    const prev = row.cache.previous !== null ? (byIndex.get(row.cache.previous) ?? null) : null;
    let found: CacheBreak | null = null;
    if (u && u.cacheRead !== undefined && (explicit(u) || reads.has(model))) {
      const other = prev === null && last?.usage && last.model !== row.model ? last : null;
      const base = prev?.usage ? prev : other;
      if (base?.usage) {
        const expected = Math.min(cacheable(base.usage), promptTokens(u));
        const tokens = expected - u.cacheRead;
        if (tokens >= MIN_BREAK_TOKENS) {
          const gapMs = row.at !== null && base.at !== null ? Math.max(0, row.at - base.at) : null;
          const price = prices.get(model) ?? prices.get('*');
          const common = { tokens, cost: breakCost(tokens, u, price), expected, read: u.cacheRead, gapMs };
          const ttl = ttlCause(gapMs, lifetimes.long(model), explicit(base.usage));
          if (other) {
            found = {
              ...common,
              cause: 'model',
              previous: null,
              certain: true,
              why: `the first request on ${row.model ?? 'this model'} after ${other.model ?? 'another model'}: caches are per model`,
            };
          } else if (ttl) {
            found = { ...common, cause: 'ttl', previous: base.index, certain: ttl.certain, why: ttl.why };
          } else {
            const mapped = row.cache.cacheBreak && row.cache.firstChange ? PREFIX_CAUSE[row.cache.firstChange.cause] : undefined;
            const cause = mapped ?? 'unexplained';
            found = { ...common, cause, previous: base.index, certain: cause !== 'unexplained', why: describe(cause, row.cache) };
          }
        }
      }
      lifetimes.see(model, u);
    }
    out.push(found);
    byIndex.set(row.index, row);
    if (u) last = row;
  }
  return out;
}

/** Count, tokens and cost of a session's breaks, by cause. */
export function breakTotals(breaks: readonly (CacheBreak | null)[]): BreakTotals {
  const byCause: Partial<Record<BreakCause, { count: number; tokens: number }>> = {};
  let count = 0;
  let tokens = 0;
  let cost: number | null = 0;
  for (const b of breaks) {
    if (!b) continue;
    count++;
    tokens += b.tokens;
    cost = cost === null || b.cost === null ? null : cost + b.cost;
    const c = (byCause[b.cause] ??= { count: 0, tokens: 0 });
    c.count++;
    c.tokens += b.tokens;
  }
  return { count, tokens, cost: count === 0 ? 0 : cost, byCause };
}
