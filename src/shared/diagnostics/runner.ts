import type { Diagnostic, Severity } from '../model/diagnostic';
import { SEVERITY_RANK } from '../model/diagnostic';
import { Facts } from './facts';
import { RULES } from './registry';
import { finding, num } from './text';
import type { Rule, RuleContext, RuleInput } from './types';
import { runToEnd, type Steps } from '../steps';

/** The finding that stands for a rule that threw: the session is fine, the rule is not. */
export const INTERNAL_RULE_ERROR = 'INTERNAL_RULE_ERROR';

/** Findings one rule may list for one session; the rest are summed up in one more finding. */
export const MAX_FINDINGS_PER_RULE = 100;

export interface RunOptions {
  /** Rules to run; default: the whole catalog. */
  readonly rules?: readonly Rule[];
  /** Run only the rules with these ids. */
  readonly only?: ReadonlySet<string> | readonly string[];
  /** Leave out findings below this severity. */
  readonly minSeverity?: Severity;
}

export function buildContext(input: RuleInput): RuleContext {
  const fullBlocks = input.fullBlocks ?? new Map();
  const estimate = input.estimate ?? null;
  return {
    events: input.events,
    state: input.state,
    format: input.format ?? null,
    reported: input.reported ?? [],
    estimate,
    fullBlocks,
    facts: new Facts(input.events, input.state, fullBlocks, estimate),
    wire: input.wire ?? null,
  };
}

const describe = (err: unknown): string => {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  try {
    return String(err);
  } catch {
    return 'an unprintable value';
  }
};

/** Keep a rule's findings well-formed: its own id, one of its severities, seqs that exist. */
function sanitize(rule: Rule, d: Diagnostic, maxSeq: number): Diagnostic {
  const severity = rule.severities.includes(d.severity) ? d.severity : (rule.severities[0] ?? 'warning');
  const seqs = Array.isArray(d.seqs) ? d.seqs.filter((s) => Number.isInteger(s) && s >= 0 && s <= maxSeq) : [];
  return { rule: rule.id, severity, message: String(d.message), file: d.file ?? null, line: d.line ?? null, seqs };
}

/**
 * Run rules over a context, in steps: it pauses after each rule, yielding how many of the rules
 * have run, so that a caller on a busy thread can answer other questions between rules (some take
 * a second on a session of a million events). Never throws: a rule that throws (or returns
 * something that is not a list of findings) becomes one INTERNAL_RULE_ERROR warning naming the
 * rule, and the others run. Findings come back in log order (first cited seq), then by rule id.
 */
export function* runRulesSteps(ctx: RuleContext, options: RunOptions = {}): Generator<Steps, Diagnostic[], void> {
  const only = options.only ? new Set(options.only) : null;
  const rules = (options.rules ?? RULES).filter((r) => !only || only.has(r.id));
  const min = options.minSeverity ? SEVERITY_RANK[options.minSeverity] : 0;
  const maxSeq = ctx.events.length - 1;
  const out: Diagnostic[] = [];
  for (let i = 0; i < rules.length; i++) {
    if (i > 0) yield { done: i, total: rules.length };
    const rule = rules[i] as Rule;
    let found: Diagnostic[];
    try {
      const r = rule.run(ctx);
      if (!Array.isArray(r)) throw new TypeError('the rule returned no list of findings');
      found = r.map((d) => sanitize(rule, d, maxSeq));
    } catch (err: unknown) {
      out.push(
        finding(
          INTERNAL_RULE_ERROR,
          'warning',
          `Rule ${rule.id} failed on this session (${describe(err)}); its checks were skipped and the other rules ran. This is a bug in Palimpsest, not in the session: please report it.`,
          [],
        ),
      );
      continue;
    }
    found.sort(byLogOrder);
    if (found.length > MAX_FINDINGS_PER_RULE) {
      const rest = found.slice(MAX_FINDINGS_PER_RULE);
      let worst: Severity = 'info';
      for (const d of rest) if (SEVERITY_RANK[d.severity] > SEVERITY_RANK[worst]) worst = d.severity;
      found = found.slice(0, MAX_FINDINGS_PER_RULE);
      found.push(
        finding(
          rule.id,
          worst,
          `… and ${num(rest.length)} more findings of ${rule.id} in this session (the first ${MAX_FINDINGS_PER_RULE} are listed).`,
          rest.slice(0, 20).flatMap((d) => d.seqs.slice(0, 1)),
        ),
      );
    }
    for (const d of found) if (SEVERITY_RANK[d.severity] >= min) out.push(d);
  }
  return out.sort(byLogOrder);
}

function byLogOrder(a: Diagnostic, b: Diagnostic): number {
  const sa = a.seqs[0] ?? Number.POSITIVE_INFINITY;
  const sb = b.seqs[0] ?? Number.POSITIVE_INFINITY;
  if (sa !== sb) return sa - sb;
  return a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0;
}

/** Build the context and run the catalog: the findings of every rule for one replayed branch. */
export function diagnose(input: RuleInput, options: RunOptions = {}): Diagnostic[] {
  return runToEnd(diagnoseSteps(input, options));
}

/**
 * diagnose() in steps, pausing after each rule as runRulesSteps does. When the whole catalog runs,
 * the facts most of its rules read (the compactions, the removals: most of a second on a session of
 * a million events) are built first, in a step of their own, rather than inside the first rule's.
 */
export function* diagnoseSteps(input: RuleInput, options: RunOptions = {}): Generator<Steps, Diagnostic[], void> {
  const wholeCatalog = !options.rules && !options.only;
  let ctx: RuleContext;
  try {
    ctx = buildContext(input);
    if (wholeCatalog) {
      void ctx.facts.compactions;
      void ctx.facts.removals;
    }
  } catch (err: unknown) {
    return [
      finding(
        INTERNAL_RULE_ERROR,
        'warning',
        `The diagnostics could not start on this session (${describe(err)}); no rule ran. This is a bug in Palimpsest: please report it.`,
        [],
      ),
    ];
  }
  if (wholeCatalog) yield { done: 0, total: RULES.length };
  return yield* runRulesSteps(ctx, options);
}
