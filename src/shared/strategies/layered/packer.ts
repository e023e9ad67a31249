/**
 * Whole-item segment packing. cosh: "The packing target is soft: if the next item exceeds the
 * remaining space, move it intact to the next group and reset the group's accounting. An item larger
 * than the target occupies its own group; it is never cut at byte or token offsets."
 */
export interface Packed {
  /** Source indices, inclusive. */
  readonly from: number;
  readonly to: number;
  /** Sum of the items' tokens (without the joining allowance). */
  readonly tokens: number;
}

/**
 * Packs items from..to (inclusive) in order. `sep` is the per-item joining allowance (the blank line
 * between rendered items) counted against the target but not reported as item tokens.
 */
export function packSegments(itemTokens: readonly number[], from: number, to: number, target: number, sep = 0): Packed[] {
  const out: Packed[] = [];
  let start = -1;
  let used = 0;
  let tokens = 0;
  const close = (end: number) => {
    if (start >= 0) out.push({ from: start, to: end, tokens });
    start = -1;
    used = 0;
    tokens = 0;
  };
  for (let i = from; i <= to; i++) {
    const t = itemTokens[i] ?? 0;
    const cost = t + sep;
    if (cost > target) {
      // Larger than the target: alone in its own group, intact.
      close(i - 1);
      out.push({ from: i, to: i, tokens: t });
      continue;
    }
    // Does not fit what is left: moved intact to the next group, whose accounting starts afresh.
    if (start >= 0 && used + cost > target) close(i - 1);
    if (start < 0) start = i;
    used += cost;
    tokens += t;
  }
  close(to);
  return out;
}
