/*
 * Where a Claude Code run compacted automatically, read from its main log: the size of a request
 * (input + cache read + cache write, as the provider reported it: what the request sent) after
 * which the next call was sent without a compaction, and after which an automatic
 * `compact_boundary` came first. Against the mock these sizes are the scenario's scripted usage,
 * so a run that reports a size just under and then just over the trigger brackets where that
 * version compacts on that model. (The boundary's `preTokens` adds the client's estimate of what
 * came after the reply, so it is not compared with reported sizes.)
 */

export interface AutoCompactSizes {
  readonly model: string;
  /** The largest size after which the next call went out without a compaction (null: none seen). */
  readonly below: number | null;
  /** The smallest size after which an automatic compaction came (null: none seen). */
  readonly at: number | null;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const n = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** The sizes of one main log (its lines as parsed), per model, in log order; unmerged. */
export function autoCompactSizes(lines: readonly Record<string, unknown>[]): AutoCompactSizes[] {
  const out: AutoCompactSizes[] = [];
  let last: { id: string; model: string; size: number } | null = null;
  for (const v of lines) {
    if (v.isSidechain === true) continue;
    if (v.type === 'system' && v.subtype === 'compact_boundary') {
      const meta = isObj(v.compactMetadata) ? v.compactMetadata : {};
      if (last && meta.trigger === 'auto') out.push({ model: last.model, below: null, at: last.size });
      last = null;
      continue;
    }
    if (v.type !== 'assistant' || !isObj(v.message)) continue;
    const m = v.message;
    const usage = isObj(m.usage) ? m.usage : null;
    const id = typeof m.id === 'string' ? m.id : '';
    if (!usage || typeof m.model !== 'string' || m.model === '<synthetic>') continue;
    const size = n(usage.input_tokens) + n(usage.cache_read_input_tokens) + n(usage.cache_creation_input_tokens);
    // The records of one reply share its id; the next reply sent means no compaction came between.
    if (last && last.id !== id) out.push({ model: last.model, below: last.size, at: null });
    last = { id, model: m.model, size };
  }
  return out;
}
