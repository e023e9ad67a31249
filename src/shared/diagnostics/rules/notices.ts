import type { Diagnostic } from '../../model/diagnostic';
import { firstAfter } from '../../seq-search';
import { finding, measureText } from '../text';
import type { RequestRecord } from '../../replay/records';
import type { Rule, RuleContext } from '../types';
import { harnessOf, itemText, pastClaudeCodeTrigger, quote, underClaudeCodeTrigger } from './inferred';

/**
 * What Claude Code itself writes when a compaction fails, and API errors around a compaction. The
 * strings are the client's own (Claude Code 2.1.332): a failed /compact ends in a `local_command`
 * record whose stderr starts "Error during compaction: " (or "Compaction failed · …"), and the
 * autocompact circuit breaker writes an API-error reply starting "Autocompact is thrashing:".
 */

const NOTICE_PREFIXES = ['Error during compaction:', 'Compaction failed \u00b7'];
const THRASHING = 'Autocompact is thrashing:';

/** API errors that say the context itself was too big for the model: a compaction did not keep it under the window. */
const OVERFLOW =
  /prompt is too long|conversation too long|context (?:length|window) exceeded|maximum context length|too many (?:input )?tokens/i;

/** The notice in a local command record's summary: the text from the first notice prefix on, tags removed. */
function noticeIn(summary: string | undefined): string | null {
  if (summary === undefined) return null;
  for (const p of NOTICE_PREFIXES) {
    const i = summary.indexOf(p);
    if (i >= 0)
      return summary
        .slice(i)
        .replace(/<\/?local-command-[a-z]+>/g, '')
        .trim();
  }
  return null;
}

/** What the log shows after a notice: the next agent request, with no compaction logged before it. */
function afterText(ctx: RuleContext, seq: number): { text: string; seq: number | null } {
  const next = firstAfter(ctx.facts.agentRequests, seq);
  if (!next) return { text: 'No model call follows it in the log.', seq: null };
  const compacted = ctx.facts.compactions.some((c) => c.commitSeq !== null && c.commitSeq > seq && c.commitSeq < next.seq);
  if (compacted)
    return { text: `A compaction was committed before the next model call (request #${next.index}, seq ${next.seq}).`, seq: next.seq };
  const m = ctx.facts.requestTokens(next);
  return {
    text: `No compaction is logged before the next model call, request #${next.index} (seq ${next.seq})${m ? `, which sent ${measureText(m)}` : ''}: the conversation went on uncompacted.`,
    seq: next.seq,
  };
}

export const COMPACTION_FAILURE_NOTICE: Rule = {
  id: 'COMPACTION_FAILURE_NOTICE',
  severities: ['warning'],
  title: 'Claude Code logged its own notice that a compaction failed or thrashed',
  origins: ['format'],
  run(ctx) {
    if (harnessOf(ctx) !== 'claude-code') return [];
    const out: Diagnostic[] = [];
    for (const e of ctx.facts.ofKinds('record')) {
      if (e.type !== 'system/local_command') continue;
      const notice = noticeIn(e.summary);
      if (notice === null) continue;
      const after = afterText(ctx, e.seq);
      out.push(
        finding(
          'COMPACTION_FAILURE_NOTICE',
          'warning',
          `Claude Code reported "${quote(notice, 160)}" (seq ${e.seq}): the compaction the user asked for failed, and the log holds none of its summarizer calls (inferred from Claude Code's own notice in the log). ${after.text}`,
          [e.seq, ...(after.seq !== null ? [after.seq] : [])],
        ),
      );
    }
    for (const rec of ctx.state.items) {
      if (rec.item.origin !== 'api-error') continue;
      const text = itemText(ctx, rec);
      if (!text.startsWith(THRASHING)) continue;
      out.push(
        finding(
          'COMPACTION_FAILURE_NOTICE',
          'warning',
          `Claude Code reported "${quote(text, 160)}" (seq ${rec.seq}): its automatic compaction tripped the thrashing breaker, so the turn stopped instead of compacting again — inferred from Claude Code's own notice in the log; the compactions it counted are the ones before it.`,
          [rec.seq],
        ),
      );
    }
    return out;
  },
};

/** Whether a compaction changed the view after the last agent request before `r` that was answered (or, with none, before `r`). */
function compactedSinceAnswer(ctx: RuleContext, r: RequestRecord): boolean {
  let since = -1;
  for (const q of ctx.facts.agentRequests) {
    if (q.seq >= r.seq) break;
    if (q.error === null && q.responseSeq !== null) since = q.seq;
  }
  return ctx.facts.compactions.some((c) => c.commitSeq !== null && c.commitSeq > since && c.commitSeq < r.seq);
}

export const API_ERROR_NEAR_COMPACTION: Rule = {
  id: 'API_ERROR_NEAR_COMPACTION',
  severities: ['warning'],
  title: 'An API error record where a compaction was due, or one that says the context was too long (inferred)',
  origins: ['format'],
  run(ctx) {
    if (harnessOf(ctx) !== 'claude-code') return [];
    const out: Diagnostic[] = [];
    for (const r of ctx.facts.agentRequests) {
      const err = r.error;
      if (err === null || r.responseSeq === null) continue;
      if (err.message.startsWith(THRASHING)) continue; // COMPACTION_FAILURE_NOTICE says it.
      const said = `"${quote(err.message)}"${err.code !== undefined ? ` (${quote(err.code, 40)})` : ''}`;
      const seqs = [r.responseSeq, r.seq];
      if (OVERFLOW.test(err.message)) {
        // A compaction that changed the view since the last answered request did run: the log
        // contradicts "failed or did not run", and says nothing of why the request was too long.
        if (compactedSinceAnswer(ctx, r)) continue;
        const trigger = pastClaudeCodeTrigger(ctx, r.seq);
        // The last size reported before it was under the trigger (a /model switch, or what was
        // added since): the log does not show that a compaction was due, so it is not blamed.
        const under = trigger ? null : underClaudeCodeTrigger(ctx, r.seq);
        const inferred = under
          ? `; before it, ${under.text}. What was added after that request is not measured, so the log does not say whether a compaction was due.`
          : `${trigger ? `; before it, ${trigger.text}` : ''}. The log suggests the automatic compaction that should have kept it under the window failed or did not run — inferred from the log: Claude Code does not log a failed summarizer call.`;
        const at = trigger ?? under;
        out.push(
          finding(
            'API_ERROR_NEAR_COMPACTION',
            'warning',
            `Request #${r.index} (seq ${r.seq}) failed with the API error ${said} (seq ${r.responseSeq}): the context was too long for the model${inferred}`,
            [...seqs, ...(at ? [at.seq] : [])],
          ),
        );
        continue;
      }
      const trigger = pastClaudeCodeTrigger(ctx, r.seq);
      const turn = ctx.facts.turnAt(r.seq);
      const near = ctx.facts.compactions.find((c) => ctx.facts.turnAt(c.start?.seq ?? c.firstSeq) === turn);
      if (!trigger && !near) continue;
      const where = trigger
        ? `before it, ${trigger.text}`
        : `compaction ${near?.id} ran in the same turn (seq ${near?.start?.seq ?? near?.firstSeq})`;
      out.push(
        finding(
          'API_ERROR_NEAR_COMPACTION',
          'warning',
          `Request #${r.index} (seq ${r.seq}) failed with the API error ${said} (seq ${r.responseSeq}), and ${where}. The log suggests the same failure may have hit the summarizer call, which Claude Code does not log — inferred from the log.`,
          [...seqs, ...(trigger ? [trigger.seq] : near ? [near.start?.seq ?? near.firstSeq] : [])],
        ),
      );
    }
    return out;
  },
};
