import type { Diagnostic } from '../../model/diagnostic';
import { epochMs } from '../../model/event';
import type { ItemRecord } from '../../replay/records';
import { isFailedAttempt } from '../facts';
import { finding, measureText, num } from '../text';
import type { Rule, RuleContext } from '../types';
import { harnessOf, isPrompt, itemText, pastClaudeCodeTrigger, quote, reportedBefore } from './inferred';

/**
 * Prompts left without a model response where the log suggests a compaction failed. Claude Code and
 * Codex log no failed summarizer call: what is left is a prompt nothing answered, and the traces
 * around it. Every finding here is an inference and says so.
 */

/** The synthetic reply Claude Code writes in place of an answer when a conversation ends on a user message. */
export const NO_RESPONSE_REQUESTED = 'No response requested.';

/** Epoch milliseconds of an event's time, when the log gives one. */
function timeOf(ctx: RuleContext, seq: number): number | null {
  return epochMs(ctx.facts.event(seq)?.at);
}

function gapText(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return `${num(s)} seconds`;
  const m = Math.round(s / 60);
  return m < 120 ? `${num(m)} minutes` : `${num(Math.round(m / 60))} hours`;
}

export const PROMPT_UNANSWERED_INFERRED: Rule = {
  id: 'PROMPT_UNANSWERED_INFERRED',
  severities: ['warning'],
  title: 'A prompt got no model response after the context passed the compaction trigger (inferred)',
  origins: ['format'],
  run(ctx) {
    if (harnessOf(ctx) !== 'claude-code') return [];
    const out: Diagnostic[] = [];
    const items = ctx.state.items;
    const prompts = items.filter((rec) => isPrompt(ctx, rec));
    const requests = ctx.facts.agentRequests;
    const starts = ctx.facts.compactions.map((c) => c.start?.seq ?? c.firstSeq);
    for (let i = 0; i < prompts.length; i++) {
      const p = prompts[i] as ItemRecord;
      const next = prompts[i + 1] ?? null;
      const to = next?.seq ?? Number.POSITIVE_INFINITY;
      // Any model call between the prompt and the next one answers it, or failed loudly (an API
      // error record, which API_ERROR_NEAR_COMPACTION reads): either way not this rule's case.
      if (requests.some((r) => r.seq > p.seq && r.seq < to)) continue;
      // An answer logged without a request of its own (an assistant message a compaction preserved).
      if (items.some((rec) => rec.seq > p.seq && rec.seq < to && rec.item.role === 'assistant' && rec.item.origin === undefined)) continue;
      const synthetic = items.filter(
        (rec) =>
          rec.seq > p.seq &&
          rec.seq < to &&
          rec.item.role === 'assistant' &&
          rec.item.origin === 'synthetic' &&
          itemText(ctx, rec) === NO_RESPONSE_REQUESTED,
      );
      const resent = next !== null && itemText(ctx, next) === itemText(ctx, p);
      // Without a later prompt or Claude Code's own stand-in reply, the log may just end mid-turn.
      if (synthetic.length === 0 && next === null) continue;
      const trigger = pastClaudeCodeTrigger(ctx, p.seq);
      const attempt = starts.find((s) => s > p.seq && s < to);
      if (!trigger && attempt === undefined) continue;
      const evidence: string[] = [];
      if (synthetic.length > 0)
        evidence.push(
          `Claude Code wrote its synthetic reply "${NO_RESPONSE_REQUESTED}" (seq ${(synthetic[0] as ItemRecord).seq}), which stands in for an answer that never came`,
        );
      if (next !== null) {
        const a = timeOf(ctx, p.seq);
        const b = timeOf(ctx, next.seq);
        const gap = a !== null && b !== null && b >= a ? `, ${gapText(b - a)} later` : '';
        evidence.push(
          resent
            ? `the same prompt was logged again at seq ${next.seq}${gap}, as when a prompt is sent again after it went unanswered`
            : `the next prompt (seq ${next.seq}${gap}) came with no model call in between`,
        );
      }
      const why = trigger
        ? `Just before it, ${trigger.text}, so Claude Code would have compacted before answering`
        : `A compaction started at seq ${attempt} and no model call followed it`;
      out.push(
        finding(
          'PROMPT_UNANSWERED_INFERRED',
          'warning',
          `The prompt at seq ${p.seq} ("${quote(itemText(ctx, p))}") got no model response: ${evidence.join('; ')}. ${why}. The log suggests that compaction failed and the prompt was dropped — inferred from the log: Claude Code does not log a failed summarizer call.`,
          [
            p.seq,
            ...synthetic.map((r) => r.seq),
            ...(next ? [next.seq] : []),
            ...(trigger ? [trigger.seq] : []),
            ...(attempt !== undefined ? [attempt] : []),
          ],
        ),
      );
    }
    return out;
  },
};

/** A turn's error as the Codex importer keeps it: a `task_complete` / `turn_complete` record "error: …". */
function turnErrors(ctx: RuleContext): { seq: number; message: string }[] {
  const out: { seq: number; message: string }[] = [];
  for (const e of ctx.facts.ofKinds('record')) {
    if (e.type !== 'event_msg/task_complete' && e.type !== 'event_msg/turn_complete') continue;
    if (!e.summary?.startsWith('error: ')) continue;
    out.push({ seq: e.seq, message: e.summary.slice('error: '.length) });
  }
  return out;
}

export const TURN_FAILED_BEFORE_RESPONSE_INFERRED: Rule = {
  id: 'TURN_FAILED_BEFORE_RESPONSE_INFERRED',
  severities: ['warning'],
  title: 'A Codex turn ended with an error before any model response (inferred: a failed pre-turn compaction)',
  origins: ['format'],
  run(ctx) {
    if (harnessOf(ctx) !== 'codex') return [];
    const out: Diagnostic[] = [];
    const turnStarts = ctx.facts.turnStarts;
    const requests = ctx.facts.agentRequests;
    for (const err of turnErrors(ctx)) {
      let from = -1;
      for (const s of turnStarts) if (s < err.seq) from = s;
      // The model answered something in this turn: the error came later, not from a compaction before it.
      if (requests.some((r) => r.seq > from && r.seq < err.seq && r.responseSeq !== null && r.error === null)) continue;
      const prompt = ctx.state.items.find((rec) => rec.seq > from && rec.seq < err.seq && isPrompt(ctx, rec)) ?? null;
      const failed = ctx.facts.compactions.filter((c) => c.firstSeq > from && c.firstSeq < err.seq && isFailedAttempt(c));
      const asked = prompt
        ? `the prompt at seq ${prompt.seq} ("${quote(itemText(ctx, prompt))}") got no model response`
        : 'no model response was logged in it';
      const turn = ctx.facts.turnAt(err.seq);
      if (failed.length > 0) {
        const c = failed[failed.length - 1];
        if (!c) continue;
        const end = c.end?.seq ?? c.lastSeq;
        const why = c.end?.error?.message ?? c.summaryErrors[0]?.error.message ?? null;
        out.push(
          finding(
            'TURN_FAILED_BEFORE_RESPONSE_INFERRED',
            'warning',
            `Turn ${num(turn)} ended with Codex's error "${quote(err.message)}" (seq ${err.seq}) right after compaction ${c.id} failed (seq ${end}${why ? `: "${quote(why)}"` : ''}): ${asked}, and the history stays uncompacted. The log suggests the failed compaction ended the turn — inferred from the log, which does not link the two.`,
            [err.seq, end, ...(prompt ? [prompt.seq] : [])],
          ),
        );
        continue;
      }
      const last = reportedBefore(ctx, from >= 0 ? from : err.seq);
      if (!last) continue; // No reported context: nothing says a compaction was due.
      out.push(
        finding(
          'TURN_FAILED_BEFORE_RESPONSE_INFERRED',
          'warning',
          `Turn ${num(turn)} ended with Codex's error "${quote(err.message)}" (seq ${err.seq}) before any model call was logged: ${asked}. Codex compacts before a turn's first model call once the reported context reaches its auto-compact limit (model_auto_compact_token_limit, which the log does not record); the last call before this turn, request #${last.req.index} (seq ${last.req.seq}), reported ${measureText(last.m)}. The log suggests that compaction failed on every retry and took the turn with it, or that the turn's first model call failed — inferred from the log, which logs neither attempt.`,
          [err.seq, ...(prompt ? [prompt.seq] : []), last.req.seq],
        ),
      );
    }
    return out;
  },
};
