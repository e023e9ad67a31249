import type { MicrocompactRule } from '../../shared/compat/claude-unlogged';

/*
 * Claude Code's microcompact (src/shared/compat/claude-unlogged.ts) evaluated on what a log holds,
 * for the importer: which tool results the client certainly cleared before a request, and which it
 * may have. Uncertain inputs are carried as bounds, never guessed: the last reply's usage (the log
 * may hold a partial output count), the warning threshold (known only as the bracket the fidelity
 * runs saw for the version and model), whether a process ended between two requests (a resumed
 * session starts with nothing cleared; the log does not say), and, for a version whose code was not
 * read, whether the rule exists at all.
 */

/** A tool call on the surface, in order, with its result when the surface holds one. */
export interface McCall {
  readonly id: string;
  readonly name: string;
  /** The client's estimate of its result (undefined: no result yet). */
  readonly tokens: number | undefined;
}

/** What the process may have cleared so far: certainly (`certain`), and possibly (`possible`, a superset). */
export interface McState {
  readonly certain: ReadonlySet<string>;
  readonly possible: ReadonlySet<string>;
}

export const MC_NONE: McState = { certain: new Set(), possible: new Set() };

export interface McInput {
  readonly rule: MicrocompactRule;
  readonly calls: readonly McCall[];
  /** The last reply's reported usage: at least `low`, at most `high`; null: none reported. */
  readonly usage: { readonly low: number; readonly high: number } | null;
  /** The automatic compaction trigger: above `below`, at most `at` (null: not known for this version and model). */
  readonly trigger: { readonly below: number; readonly at: number } | null;
  /** Whether the previous request was made by the same process (no new prompt since it). */
  readonly sameProcess: boolean;
  readonly state: McState;
}

/** The client's own selection with `skip` already cleared: what it clears now and what that saves. */
export function selectClearing(
  rule: MicrocompactRule,
  calls: readonly McCall[],
  skip: ReadonlySet<string>,
): { ids: Set<string>; saved: number } {
  const ids = calls.filter((c) => rule.tools.has(c.name) && !skip.has(c.id));
  const keep = new Set(ids.slice(-rule.keepRecent).map((c) => c.id));
  let total = 0;
  for (const c of ids) total += c.tokens ?? 0;
  let saved = 0;
  const out = new Set<string>();
  for (const c of ids) {
    if (keep.has(c.id)) continue;
    if (total - saved > rule.budget) {
      out.add(c.id);
      saved += c.tokens ?? 0;
    }
  }
  return { ids: out, saved };
}

type Gate = 'yes' | 'no' | 'unknown';

/** Whether the last reply was at or past the warning threshold. */
export function warningGate(i: Pick<McInput, 'rule' | 'usage' | 'trigger'>): Gate {
  if (!i.usage || !i.trigger || !i.rule.read) return 'unknown';
  if (i.usage.low >= i.trigger.at - i.rule.belowTrigger) return 'yes';
  if (i.usage.high <= i.trigger.below - i.rule.belowTrigger) return 'no';
  return 'unknown';
}

/** What one process clears with `skip` already cleared: at least `low`, at most `high` (both include `skip`). */
function bounds(i: McInput, g: Gate, skip: ReadonlySet<string>): { low: Set<string>; high: Set<string> } {
  const { ids, saved } = selectClearing(i.rule, i.calls, skip);
  const fires = saved >= i.rule.minSaving && ids.size > 0;
  const withSkip = new Set([...skip, ...ids]);
  if (!fires || g === 'no') return { low: new Set(skip), high: new Set(skip) };
  return g === 'yes' ? { low: withSkip, high: withSkip } : { low: new Set(skip), high: withSkip };
}

export interface McResult {
  /** Calls whose results are cleared in this request, certainly. */
  readonly certain: Set<string>;
  /** Calls whose results may be cleared in this request (not certain either way). */
  readonly maybe: Set<string>;
  /** What the process may have cleared after this request. */
  readonly state: McState;
}

/** The results cleared at one request, certainly and possibly. */
export function evaluate(i: McInput): McResult {
  const g = warningGate(i);
  const { certain, possible } = i.state;
  // The same process: it skips what it cleared before. When that is known exactly, so is the rest.
  let low: Set<string>;
  let high: Set<string>;
  if (sameSet(certain, possible)) ({ low, high } = bounds(i, g, certain));
  else {
    const a = bounds(i, g, certain);
    const b = bounds(i, g, possible);
    low = new Set(certain);
    high = new Set([...a.high, ...b.high, ...possible]);
  }
  if (!i.sameProcess) {
    // A new process (a resumed session) clears afresh: certain only what both would clear.
    const fresh = bounds(i, g, new Set());
    low = new Set([...low].filter((id) => fresh.low.has(id)));
    high = new Set([...high, ...fresh.high]);
  }
  const maybe = new Set([...high].filter((id) => !low.has(id)));
  return { certain: low, maybe, state: { certain: low, possible: high } };
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}

/** The client's estimate of a result: its texts' length / 4 rounded, each image a fixed amount. */
export function resultTokens(parts: readonly { readonly type: string; readonly text?: string }[], imageTokens: number): number {
  let n = 0;
  for (const p of parts) {
    if (p.type === 'text' && p.text !== undefined) n += Math.round(p.text.length / 4);
    else if (p.type === 'image') n += imageTokens;
  }
  return n;
}
