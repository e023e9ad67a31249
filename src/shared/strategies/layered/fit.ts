import type { SummaryRequest } from '../types';
import type { RunContext, Step } from './context';

/**
 * Splits an ordered list into consecutive groups whose complete requests (instructions + members +
 * reserved output) fit the summarizer window. Greedy on per-member estimates, then each request is
 * verified as built — the check cosh asks of every request "before sending". A member that
 * cannot fit even alone fails the grouping explicitly.
 */
export function groupToFit<T>(
  ctx: RunContext,
  list: readonly T[],
  render: (member: T) => string,
  build: (members: readonly T[], index: number) => SummaryRequest,
  describe: (member: T) => string,
): Step<T[][]> {
  const empty = build([], 0);
  const overhead = ctx.inputTokens(empty) + (empty.maxOutput ?? ctx.connectorOutput);
  const sep = ctx.count('\n\n');
  const rough: T[][] = [];
  let cur: T[] = [];
  let used = overhead;
  for (const m of list) {
    const cost = ctx.count(render(m)) + sep;
    if (cur.length > 0 && used + cost > ctx.window) {
      rough.push(cur);
      cur = [];
      used = overhead;
    }
    cur.push(m);
    used += cost;
  }
  if (cur.length > 0) rough.push(cur);

  const out: T[][] = [];
  for (const g of rough) {
    let rest = g;
    while (rest.length > 0) {
      let n = rest.length;
      while (n > 1 && !ctx.fits(build(rest.slice(0, n), out.length))) n--;
      if (!ctx.fits(build(rest.slice(0, n), out.length))) {
        return {
          ok: false,
          reason: `${describe(rest[0] as T)} is too large for one ${empty.stage} request in the ${ctx.window}-token summarizer window`,
        };
      }
      out.push(rest.slice(0, n));
      rest = rest.slice(n);
    }
  }
  return { ok: true, value: out };
}
