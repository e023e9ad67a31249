import type { BudgetPolicy } from '../model/event';
import type { RequestRecord } from '../replay/records';
import { lastBefore } from '../seq-search';
import { amount, defaultPolicyFor, type TokenPolicy } from '../tokens/policy';
import { type SeenAutoCompact, seenAutoCompact } from '../compat/auto-compact';
import type { RuleContext } from './types';

/*
 * The compaction trigger in force at each agent request: the one TRIGGER_MISSED judges requests
 * against, and the one the health report (src/shared/health/) counts requests above. Kept in one
 * place so that the two never disagree about where a session's trigger was.
 */

/**
 * Harnesses whose logs record neither their compaction policy nor a failed automatic compaction
 * (docs/fidelity.md: retries of a failing summarizer are visible only on the wire). For them,
 * TRIGGER_MISSED infers from the harness's documented policy (src/shared/tokens/policy.ts), says
 * so, and reports at info: an inference, not a recorded fact. Gemini CLI is one: a compression
 * that fails (an empty summary, or one that would inflate the count) leaves nothing in its chat
 * file, so this is where those outcomes show.
 */
const UNRECORDED_POLICY_FORMATS: ReadonlySet<string> = new Set(['claude-code', 'codex', 'gemini-cli']);

/**
 * The windows on which a format's documented trigger is known to apply, when its threshold moved
 * with the window and the version. Claude Code's (window − min(max output, 20,000) − 13,000) is
 * documented for the 200,000-token window; on the opt-in 1M window it changed from version to
 * version (capped at about 400,000 from 2.1.92, computed against 200,000 for Opus 4.7 until
 * 2.1.117, about 367,000 in 2.1.119: anthropics/claude-code#43989, #52519, #54056), and the
 * CLAUDE_AUTOCOMPACT_PCT_OVERRIDE setting lowers it unseen. So the rule infers only on a window
 * the log records, never on the preset's default: Claude Code's log records none, and a session
 * seen compacting at 187,000–195,000 tokens ran on a window the log does not name.
 */
const KNOWN_TRIGGER_WINDOW: Readonly<Record<string, (window: number) => boolean>> = {
  'claude-code': (w) => w <= 200_000,
};

function threshold(p: BudgetPolicy, routeWindow: number | undefined): number | null {
  if (p.triggerTokens !== undefined) return p.triggerTokens;
  const w = p.window ?? routeWindow;
  if (p.triggerRatio === undefined || w === undefined) return null;
  return Math.floor(p.triggerRatio * w);
}

/** Where a session's trigger comes from, and the trigger at any agent request. */
export interface TriggerLimits {
  /** The harness's documented policy, when the log records none and the trigger is inferred from it; null: the recorded policy. */
  readonly preset: TokenPolicy | null;
  /** Where this client version was seen compacting with the request's model (the version table), when the trigger is inferred. */
  readonly seenFor: (r: RequestRecord) => SeenAutoCompact | null;
  /** The trigger in tokens at a request; null when it is not known there. */
  readonly limitAt: (r: RequestRecord) => number | null;
}

/**
 * The trigger of a session's requests: from the policy its compactions recorded, else (for the
 * harnesses that record none) from the version table or the documented policy. Null when neither
 * is known: nothing can be said about requests above the trigger.
 */
export function triggerLimits(ctx: RuleContext): TriggerLimits | null {
  const policies = ctx.facts.compactions
    .filter((c) => c.start?.policy)
    .map((c) => ({ seq: c.start?.seq ?? 0, policy: c.start?.policy as BudgetPolicy }))
    .sort((a, b) => a.seq - b.seq);
  const inferred = policies.length === 0 && ctx.format !== null && UNRECORDED_POLICY_FORMATS.has(ctx.format);
  if (policies.length === 0 && !inferred) return null;
  const preset = inferred ? defaultPolicyFor(ctx.format as string) : null;
  // The policy of the latest start at or before `seq` (the first one before any start).
  const policyAt = (seq: number): BudgetPolicy => (lastBefore(policies, seq + 1) ?? (policies[0] as { policy: BudgetPolicy })).policy;
  const known = KNOWN_TRIGGER_WINDOW[ctx.format ?? ''];
  // Where this version was seen compacting with the request's model, when the version table has it
  // (src/shared/compat/auto-compact.ts): it stands before the documented policy, which older and
  // newer versions do not follow.
  const version = preset ? harnessVersion(ctx) : undefined;
  const seenFor = (r: RequestRecord): SeenAutoCompact | null => (preset ? seenAutoCompact(ctx.format ?? '', version, r.route.model) : null);
  const limitAt = (r: RequestRecord): number | null => {
    if (!preset) return threshold(policyAt(r.seq), r.route.window);
    const seen = seenFor(r);
    if (seen) return seen.at;
    if (known && (r.route.window === undefined || !known(r.route.window))) return null;
    const t = amount(preset.trigger, r.route.window ?? preset.defaultWindow);
    return t === null ? null : Math.floor(t);
  };
  return { preset, seenFor, limitAt };
}

/** The client version the log's session names (its first line's), if it names one. */
function harnessVersion(ctx: RuleContext): string | undefined {
  const n = Math.min(ctx.events.length, 64);
  for (let seq = 0; seq < n; seq++) {
    const kind = ctx.events.kindAt ? ctx.events.kindAt(seq) : ctx.events.at(seq)?.kind;
    if (kind !== 'session') continue;
    const e = ctx.events.at(seq);
    return e?.kind === 'session' ? e.harnessVersion : undefined;
  }
  return undefined;
}
