/*
 * cosh's numbers, in one place, and the options the `layered` strategy accepts. Every constant
 * cites the sentence of cosh's "Layered context compaction" (its docs/context-compaction.md) it
 * comes from.
 */

/** "Reserve a recent raw window (20% of the effective context budget)". */
export const TAIL_RATIO = 0.2;
/** "Up to four map calls run concurrently." */
export const MAX_CONCURRENCY = 4;
/** "Context overflow permits at most three whole-item repartitions of incomplete maps". */
export const MAX_REPARTITIONS = 3;
/** "Eight reduction levels and two corrections bound non-converging output." */
export const MAX_REDUCE_LEVELS = 8;
export const MAX_CORRECTIONS = 2;
/** "REREAD: start-end,... can request up to three raw ranges". */
export const MAX_REREAD_RANGES = 3;
/** "maps, intermediate reductions and audits retain their separate 10% window reservation, clamped to 64–2,000 tokens". */
export const MAP_OUTPUT_RATIO = 0.1;
export const MAP_OUTPUT_MIN = 64;
export const MAP_OUTPUT_MAX = 2_000;

/** The output reservation (sent as maxOutput) of maps, intermediate reductions and audits for a summarizer window. */
export function mapOutputReserve(window: number): number {
  return Math.min(MAP_OUTPUT_MAX, Math.max(MAP_OUTPUT_MIN, Math.floor(window * MAP_OUTPUT_RATIO)));
}

export interface LayeredOptions {
  /** Map calls in flight at once, 1–4 (default 4). 1 is cosh's sequential MapReduce mode. */
  readonly concurrency: number;
  /**
   * Soft packing target of a map segment, in item tokens. Default: all the room a map request has
   * (summarizer window − map instructions − map output reservation). A smaller value is clamped to
   * that room; it never enlarges the request window.
   */
  readonly segmentTokens: number | null;
  /** Run the validator audit and its corrections on a MapReduce candidate (default true). */
  readonly audit: boolean;
  /** Take the MapReduce path even when the one-shot request fits (to compare paths on one trace). */
  readonly forceMapReduce: boolean;
}

export const DEFAULT_OPTIONS: LayeredOptions = { concurrency: MAX_CONCURRENCY, segmentTokens: null, audit: true, forceMapReduce: false };

const KNOWN = new Set(['concurrency', 'segmentTokens', 'audit', 'forceMapReduce']);

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/** Validates the strategy options; unknown keys are an error (StrategyInput.options contract). */
export function parseOptions(
  raw: Readonly<Record<string, unknown>> | undefined,
): { ok: true; options: LayeredOptions } | { ok: false; error: string } {
  if (!raw) return { ok: true, options: DEFAULT_OPTIONS };
  const unknown = Object.keys(raw).filter((k) => !KNOWN.has(k));
  if (unknown.length > 0)
    return { ok: false, error: `unknown option(s) for layered: ${unknown.join(', ')} (accepted: ${[...KNOWN].join(', ')})` };
  const { concurrency, segmentTokens, audit, forceMapReduce } = raw;
  if (concurrency !== undefined && (!isInt(concurrency) || concurrency < 1 || concurrency > MAX_CONCURRENCY)) {
    return {
      ok: false,
      error: `concurrency must be an integer from 1 to ${MAX_CONCURRENCY} (cosh: up to four map calls run concurrently)`,
    };
  }
  if (segmentTokens !== undefined && segmentTokens !== null && (!isInt(segmentTokens) || segmentTokens < 1)) {
    return { ok: false, error: 'segmentTokens must be a positive integer' };
  }
  if (audit !== undefined && typeof audit !== 'boolean') return { ok: false, error: 'audit must be a boolean' };
  if (forceMapReduce !== undefined && typeof forceMapReduce !== 'boolean') return { ok: false, error: 'forceMapReduce must be a boolean' };
  return {
    ok: true,
    options: {
      concurrency: concurrency ?? DEFAULT_OPTIONS.concurrency,
      segmentTokens: segmentTokens ?? null,
      audit: audit ?? DEFAULT_OPTIONS.audit,
      forceMapReduce: forceMapReduce ?? DEFAULT_OPTIONS.forceMapReduce,
    },
  };
}
