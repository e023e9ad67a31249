import type { ItemRecord, RequestRecord } from '../../replay/records';
import { lastBefore } from '../../seq-search';
import { amount, defaultPolicyFor } from '../../tokens/policy';
import { measureText, num, textOf } from '../text';
import type { Measure } from '../measure';
import type { RuleContext } from '../types';
import type { Facts } from '../facts';

/**
 * What the rules that infer a failure from the log alone share: which harness wrote the log, the
 * context last reported before an event, and Claude Code's automatic compaction trigger. Claude
 * Code and Codex log no failed summarizer call, so these rules read the traces a failure leaves
 * instead, and word their findings as inferences.
 */

/** The harness that wrote the log: the importer's format, else the `session` event's `harness` (a converted log). */
export function harnessOf(ctx: RuleContext): string | null {
  if (ctx.format === 'claude-code' || ctx.format === 'codex') return ctx.format;
  for (const e of ctx.facts.ofKinds('session')) if (e.harness !== undefined) return e.harness;
  return null;
}

/** The last agent request before `seq` whose context size was reported by the provider, with that size. */
export function reportedBefore(ctx: RuleContext, seq: number): { req: RequestRecord; m: Measure } | null {
  const reported = ctx.facts.agentRequestsWhere('reported-usage', (r) => ctx.facts.requestTokens(r)?.source === 'reported');
  const req = lastBefore(reported, seq);
  const m = req ? ctx.facts.requestTokens(req) : null;
  return req && m ? { req, m } : null;
}

/** The window Claude Code's documented trigger is written for; larger windows moved it from version to version. */
const DOCUMENTED_WINDOW = 200_000;

/**
 * Claude Code's automatic compaction trigger for a request, from its documented policy (the log
 * records neither the window nor the threshold): window − 20,000 − 13,000, on the route's window
 * or 200,000. On the 200,000-token window that trigger is an upper bound (a setting can only lower
 * it). On a larger window (the opt-in 1M one) it moved from version to version, so it is not known:
 * null when the route records a larger window, or when `session` reported more input than
 * 200,000 tokens anywhere, which no request on the 200,000-token window can.
 */
export function claudeCodeTrigger(req: RequestRecord, session?: RuleContext): number | null {
  const preset = defaultPolicyFor('claude-code');
  const window = req.route.window ?? preset.defaultWindow ?? DOCUMENTED_WINDOW;
  if (window > DOCUMENTED_WINDOW) return null;
  if (req.route.window === undefined && session && largestReported(session) > DOCUMENTED_WINDOW) return null;
  return amount(preset.trigger, window);
}

/** The largest input a provider reported for an agent request of the session (0 when none). */
function largestReported(ctx: RuleContext): number {
  let max = 0;
  for (const r of ctx.facts.agentRequests) {
    const m = ctx.facts.requestTokens(r);
    if (m?.source === 'reported' && m.value > max) max = m.value;
  }
  return max;
}

/**
 * The context last reported before `seq`, against Claude Code's trigger: whether it was at or past
 * it, the sentence that says where it stood, with the window it assumed, and the request it rests
 * on. Null when no size was reported before `seq` or the trigger is not known.
 */
function againstClaudeCodeTrigger(ctx: RuleContext, seq: number): { past: boolean; text: string; seq: number } | null {
  const last = reportedBefore(ctx, seq);
  if (!last) return null;
  const limit = claudeCodeTrigger(last.req, ctx);
  if (limit === null) return null;
  const past = last.m.value >= limit;
  const window =
    last.req.route.window === undefined
      ? `on the ${num(DOCUMENTED_WINDOW)}-token window (the log does not record the window; no request of the session reported more)`
      : `on the ${num(last.req.route.window)}-token window the log records`;
  return {
    past,
    text: `request #${last.req.index} (seq ${last.req.seq}) reported ${measureText(last.m)}, ${past ? 'past' : 'under'} the ${num(limit)}-token automatic compaction trigger of Claude Code's documented policy ${window}`,
    seq: last.req.seq,
  };
}

/** The context last reported before `seq`, when it was at or past Claude Code's trigger. */
export function pastClaudeCodeTrigger(ctx: RuleContext, seq: number): { text: string; seq: number } | null {
  const at = againstClaudeCodeTrigger(ctx, seq);
  return at?.past ? { text: at.text, seq: at.seq } : null;
}

/** The context last reported before `seq`, when it was under Claude Code's trigger. */
export function underClaudeCodeTrigger(ctx: RuleContext, seq: number): { text: string; seq: number } | null {
  const at = againstClaudeCodeTrigger(ctx, seq);
  return at && !at.past ? { text: at.text, seq: at.seq } : null;
}

/** Text of an item's blocks (its extensions included), trimmed. */
export function itemText(ctx: RuleContext, rec: ItemRecord): string {
  return textOf(ctx.facts.blocksOf(rec)).trim();
}

/** Text of blocks, on one line and at most `max` characters, for quoting untrusted text in a message. */
export function quote(text: string, max = 100): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/**
 * User items Claude Code writes for its own local commands and interruptions: they are typed or
 * shown, but no model call answers them, so they are never "a prompt left without a response".
 */
const NOT_A_PROMPT =
  /^(?:<command-name>|<command-message>|<local-command-|<system-reminder>|<bash-input>|<bash-stdout>|<bash-stderr>|\[Request interrupted)/;

/** A user item that is one of Claude Code's local-command echoes, reminders or interruptions. */
export function isHarnessEcho(ctx: RuleContext, rec: ItemRecord): boolean {
  return NOT_A_PROMPT.test(itemText(ctx, rec));
}

/**
 * A user instruction a model call should answer: typed by the user (an item with an `origin` is the
 * harness's — an attachment, a message rebuilt from a logged request, a summary), and not a local
 * command, its output, a reminder or an interruption.
 */
export function isPrompt(ctx: RuleContext, rec: ItemRecord): boolean {
  return isPromptIn(ctx.facts, rec);
}

/** isPrompt for a caller that has the facts and no rule context (compaction forensics). */
export function isPromptIn(facts: Facts, rec: ItemRecord): boolean {
  if (rec.item.origin !== undefined || !facts.isUserInstruction(rec)) return false;
  const text = textOf(facts.blocksOf(rec)).trim();
  return text.length > 0 && !NOT_A_PROMPT.test(text);
}
