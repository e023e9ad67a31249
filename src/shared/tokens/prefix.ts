import { fateAt } from '../replay/view';
import type { RequestTokens, UnitInfo } from './units';

/**
 * Prompt-cache analysis: providers reuse the computation of the longest prefix a request shares,
 * token for token, with an earlier one (Anthropic, OpenAI and DeepSeek all cache exact prefixes).
 * cosh: "a mutation at position k invalidates the exact-prefix prompt cache of every provider for
 * everything after k, while a tail mutation is cache-neutral." DeepSeek Harness: "From the first
 * shadowed token onward, the old cache no longer matches, so checkpoint and recent tail are
 * recomputed."
 */
export type ChangeCause =
  /** The previous request is a prefix of this one: only new items were appended. */
  | 'append'
  /** Nothing changed at all. */
  | 'none'
  | 'tools'
  | 'system'
  /** An item now shows its mask reference instead of its payload (or the reverse). */
  | 'mask'
  | 'unmask'
  /** A checkpoint / handoff took the place of the items it summarises. */
  | 'compaction'
  /** A tool result was replaced by its pruned head + marker + tail. */
  | 'prune'
  /** A fallback marker took the place of dropped items. */
  | 'truncation'
  | 'reinjection'
  /** Items left the view without a replacement (dropped, hidden, cleared). */
  | 'drop'
  /** The todo block, kept at the tail, moved behind new items or changed. */
  | 'todo'
  /** The item at that position grew (one response logged as several records). */
  | 'extend'
  /** This request's items are a strict prefix of the previous one's (rewind, rollback, a summarizer's own input). */
  | 'shorter'
  | 'other';

export interface PrefixAnalysis {
  /** Index of the request compared with (the previous one on the same model), or null for the first. */
  readonly previous: number | null;
  readonly sharedUnits: number;
  /** Tokens (logged content, estimated framing included) of the shared prefix. */
  readonly sharedTokens: number;
  /** The first position that differs, in this request's order (tools, system, items…, todo). */
  readonly firstChange: { readonly position: number; readonly unit: string; readonly cause: ChangeCause } | null;
  /** Part of the previous request after the shared prefix is not reused: the cache is broken there. */
  readonly cacheBreak: boolean;
  /** head: tools or system changed; tail: only the newest item changed (cache-neutral in cosh's sense); mid: history changed. */
  readonly where: 'head' | 'mid' | 'tail' | null;
  /** Tokens of the previous request after the shared prefix (cached work lost). */
  readonly invalidatedTokens: number;
  /**
   * Tokens after the shared prefix that the previous request already had, or that stand in for what
   * it had (a mask reference, a pruned result, a checkpoint): the recomputed cost of a break.
   */
  readonly recomputedTokens: number;
  /** Tokens after the shared prefix that are new conversation. */
  readonly appendedTokens: number;
  /** Positions after the shared prefix that are new conversation. */
  readonly appendedUnits: number;
  /** Cache reads the provider reported for this request, when it did. */
  readonly reportedCacheRead: number | null;
  /**
   * reportedCacheRead / the expected cached prefix (sharedTokens; the report (./report.ts) adds the measured
   * unlogged envelope): near 1 when the provider reused exactly the shared prefix.
   */
  readonly cacheReadRatio: number | null;
}

/** New units after the shared prefix up to which the previous request's units are scanned, not indexed. */
const SCAN_TAIL = 8;

/** The previous request's unit keys and item ids, as sets made when first asked for. */
class PrevUnits {
  private keySet: Set<number> | null = null;
  private idSet: Set<string> | null = null;

  constructor(private readonly units: readonly UnitInfo[]) {}

  keys(): ReadonlySet<number> {
    this.keySet ??= new Set(this.units.map((u) => u.key));
    return this.keySet;
  }

  ids(): ReadonlySet<string> {
    if (!this.idSet) {
      this.idSet = new Set<string>();
      for (const u of this.units) if (u.rec) this.idSet.add(u.rec.id);
    }
    return this.idSet;
  }
}

function hasKey(units: readonly UnitInfo[], from: number, key: number): boolean {
  for (let i = from; i < units.length; i++) if ((units[i] as UnitInfo).key === key) return true;
  return false;
}

/** Whether a unit replaces content the previous request showed (ids in `shown`). */
function standsIn(u: UnitInfo, shown: { has(id: string): boolean }): boolean {
  if (!u.rec) return false;
  if (u.masked) return shown.has(u.rec.id);
  const d = u.rec.item.derivation;
  switch (d?.kind) {
    case 'pruned':
      return shown.has(d.of);
    case 'checkpoint':
      return d.covers.some((id) => shown.has(id));
    case 'marker':
    case 'reinjected':
      return d.of.some((id) => shown.has(id));
    default:
      return false;
  }
}

function causeAt(prev: RequestTokens, cur: RequestTokens, k: number): ChangeCause {
  const a = prev.units[k] as UnitInfo;
  const b = cur.units[k] as UnitInfo;
  if (a.kind === 'todo') return 'todo';
  if (a.kind === 'tools' || b.kind === 'tools') return 'tools';
  if (a.kind === 'system' || b.kind === 'system') return 'system';
  if (a.rec && b.rec && a.rec === b.rec) {
    if (a.masked !== b.masked) return b.masked ? 'mask' : 'unmask';
    if (a.masked && b.masked) return 'mask';
    return 'extend';
  }
  switch (b.rec?.item.derivation?.kind) {
    case 'checkpoint':
      return 'compaction';
    case 'pruned':
      return 'prune';
    case 'marker':
      return 'truncation';
    case 'reinjected':
      return 'reinjection';
    default:
      break;
  }
  // An old item the previous request did not show is back (restored, re-injected).
  if (b.rec && b.rec.seq < prev.request.seq && !prev.units.some((u) => u.rec === b.rec)) return 'reinjection';
  if (a.rec) {
    const fate = fateAt(a.rec, cur.request.seq);
    if (fate) {
      switch (fate.fate) {
        case 'summarised':
          return 'compaction';
        case 'pruned':
          return 'prune';
        case 'dropped':
          return fate.reason === 'truncation' ? 'truncation' : 'drop';
        case 'masked':
          return 'mask';
        default:
          break;
      }
    }
  }
  return 'other';
}

/**
 * Compares a request with the previous one: the longest shared prefix (in positions and tokens),
 * the first position that changed and why, and what a break costs.
 */
export function comparePrefix(prev: RequestTokens | null, cur: RequestTokens): PrefixAnalysis {
  const reportedCacheRead = cur.request.usage?.cacheRead ?? null;
  if (!prev) {
    return {
      previous: null,
      sharedUnits: 0,
      sharedTokens: 0,
      firstChange: null,
      cacheBreak: false,
      where: null,
      invalidatedTokens: 0,
      recomputedTokens: 0,
      appendedTokens: cur.total,
      appendedUnits: cur.units.length,
      reportedCacheRead,
      cacheReadRatio: null,
    };
  }
  const n = Math.min(prev.units.length, cur.units.length);
  let k = 0;
  let sharedTokens = 0;
  while (k < n && (prev.units[k] as UnitInfo).key === (cur.units[k] as UnitInfo).key) {
    sharedTokens += cur.unitTokens[k] as number;
    k++;
  }
  let invalidatedTokens = 0;
  for (let i = k; i < prev.units.length; i++) invalidatedTokens += prev.unitTokens[i] as number;

  // After the shared prefix, a position is recomputed work when the previous request had its content
  // (shifted by the change) or when it stands in for content the previous request had (a mask, a
  // pruned result, a checkpoint over shown items); anything else is new conversation, appended.
  // Most requests append a few units to the previous one: for those, a scan of the previous units
  // per new unit is cheaper than sets over every unit of both, built for every request. The item-id
  // set is needed only for masks and derived items.
  const earlier = new PrevUnits(prev.units);
  const scan = cur.units.length - k <= SCAN_TAIL;
  // In a list without repeats, a unit after the shared prefix is none of the previous request's first
  // k (those are this request's own first k): the scan starts at k, not at the head of the view.
  const from = cur.distinct ? k : 0;
  const before = { has: (key: number) => (scan ? hasKey(prev.units, from, key) : earlier.keys().has(key)) };
  const shown = { has: (id: string) => earlier.ids().has(id) };
  let appendedTokens = 0;
  let appendedUnits = 0;
  let recomputedTokens = 0;
  for (let i = k; i < cur.units.length; i++) {
    const u = cur.units[i] as UnitInfo;
    const t = cur.unitTokens[i] as number;
    if (before.has(u.key) || standsIn(u, shown)) recomputedTokens += t;
    else {
      appendedTokens += t;
      appendedUnits++;
    }
  }

  // The todo block sits at the tail (cosh): new items push it back, which costs its own tokens
  // only. It is not counted as a break of the cache.
  let lost = 0;
  for (let i = k; i < prev.units.length; i++) if ((prev.units[i] as UnitInfo).kind !== 'todo') lost++;
  const cacheBreak = lost > 0;
  let firstChange: PrefixAnalysis['firstChange'] = null;
  let where: PrefixAnalysis['where'] = null;
  if (k < prev.units.length) {
    const cause = k < cur.units.length ? causeAt(prev, cur, k) : 'shorter';
    const unit = (k < cur.units.length ? cur.units[k] : prev.units[k]) as UnitInfo;
    firstChange = { position: k, unit: unit.label, cause };
    const head = (prev.units[k] as UnitInfo).kind;
    where = head === 'tools' || head === 'system' ? 'head' : lost <= 1 ? 'tail' : 'mid';
  } else if (k < cur.units.length) {
    firstChange = { position: k, unit: (cur.units[k] as UnitInfo).label, cause: 'append' };
  }
  return {
    previous: prev.index,
    sharedUnits: k,
    sharedTokens,
    firstChange,
    cacheBreak,
    where,
    invalidatedTokens,
    recomputedTokens,
    appendedTokens,
    appendedUnits,
    reportedCacheRead,
    cacheReadRatio: reportedCacheRead !== null && sharedTokens > 0 ? reportedCacheRead / sharedTokens : null,
  };
}
