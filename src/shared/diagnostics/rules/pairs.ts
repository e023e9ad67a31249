import type { Diagnostic } from '../../model/diagnostic';
import type { ItemRecord } from '../../replay/records';
import { lowerBound } from '../../seq-search';
import { finding, list, plural } from '../text';
import type { Rule, RuleContext } from '../types';
import { describeCut, itemRef } from './common';
import { isHarnessEcho } from './inferred';

/**
 * Cuts: a compaction source, a replaced range, a truncation, a drop must never separate a tool call
 * from its result, and an unanswered call must not cross a cut (Rind, cosh, DeepSeek Harness). The
 * system message at surface position 0 never enters a compacted range (DeepSeek Harness).
 * Unanswered or queued user messages stay verbatim (cosh).
 */

interface Units {
  calls: Map<string, ItemRecord>;
  answers: Map<string, ItemRecord[]>;
}

function unitsOf(ctx: RuleContext, items: readonly ItemRecord[]): Units {
  const calls = new Map<string, ItemRecord>();
  const answers = new Map<string, ItemRecord[]>();
  for (const rec of items) {
    for (const id of ctx.facts.callsOf(rec)) if (!calls.has(id)) calls.set(id, rec);
    for (const id of ctx.facts.answersOf(rec)) {
      let l = answers.get(id);
      if (!l) answers.set(id, (l = []));
      l.push(rec);
    }
  }
  return { calls, answers };
}

export const PAIR_SPLIT: Rule = {
  id: 'PAIR_SPLIT',
  severities: ['error'],
  title: 'A cut or range separates a tool call from its result, or an unanswered call crosses a cut',
  origins: ['000', '001', '004'],
  run(ctx) {
    const out: Diagnostic[] = [];
    const reported = new Set<string>();
    const key = (owner: string | null, callId: string) => `${owner ?? '-'}\u0000${callId}`;
    for (const r of ctx.facts.removals) {
      const before = unitsOf(ctx, ctx.facts.surfaceAt(r.seq).items);
      const after = unitsOf(ctx, ctx.facts.surfaceAt(r.seq + 1).items);
      const cut = describeCut(ctx, r.seq);
      for (const [callId, callRec] of before.calls) {
        const results = before.answers.get(callId);
        const k = key(cut.compactionId, callId);
        if (reported.has(k)) continue;
        if (results && results.length > 0) {
          const callKept = after.calls.has(callId);
          const resultKept = after.answers.has(callId);
          if (resultKept && !callKept) {
            reported.add(k);
            const kept = after.answers.get(callId) ?? [];
            out.push(
              finding(
                'PAIR_SPLIT',
                'error',
                `${cut.what} took the tool call ${callId} (item ${itemRef(callRec.id, callRec.seq)}) off the view but kept its result ${list(kept.map((x) => x.id))}: the model sees a result without its call, which providers reject.`,
                [r.seq, callRec.seq, ...kept.map((x) => x.seq)],
              ),
            );
          } else if (callKept && !resultKept) {
            reported.add(k);
            out.push(
              finding(
                'PAIR_SPLIT',
                'error',
                `${cut.what} took the result of tool call ${callId} (${list(results.map((x) => x.id))}) off the view but kept the call in item ${itemRef(callRec.id, callRec.seq)}: the model sees a call without its result.`,
                [r.seq, callRec.seq, ...results.map((x) => x.seq)],
              ),
            );
          }
        } else if (!after.calls.has(callId) && r.items.includes(callRec)) {
          // An unanswered call was cut; its result, if it comes, has no call in view.
          const later = (ctx.facts.resultItems.get(callId) ?? []).filter((x) => x.seq > r.seq);
          if (later.length === 0) continue;
          reported.add(k);
          out.push(
            finding(
              'PAIR_SPLIT',
              'error',
              `${cut.what} took the tool call ${callId} (item ${itemRef(callRec.id, callRec.seq)}) off the view before it was answered; its result ${itemRef(later[0]?.id ?? '?', later[0]?.seq ?? 0)} arrived after the cut and has no call in view. An open unit must stay out of the cut until it closes.`,
              [r.seq, callRec.seq, ...later.map((x) => x.seq)],
            ),
          );
        }
      }
    }
    // Source ranges: what a summarizer was given as the range to replace, even when nothing was committed.
    for (const c of ctx.facts.compactions) {
      const start = c.start;
      if (!start?.source || start.source.length === 0) continue;
      const live = ctx.facts.surfaceAt(start.seq).items;
      const liveIds = new Set(live.map((x) => x.id));
      const inSource = new Set(start.source);
      const units = unitsOf(ctx, live);
      for (const [callId, callRec] of units.calls) {
        if (reported.has(key(c.id, callId))) continue;
        const results = (units.answers.get(callId) ?? []).filter((x) => liveIds.has(x.id));
        if (results.length === 0) continue;
        const callIn = inSource.has(callRec.id);
        const resultsIn = results.filter((x) => inSource.has(x.id));
        if (callIn === (resultsIn.length === results.length) && (callIn || resultsIn.length === 0)) continue;
        reported.add(key(c.id, callId));
        const message = callIn
          ? `The source range of compaction ${c.id} includes the tool call ${callId} (item ${callRec.id}) but not its result ${list(results.filter((x) => !inSource.has(x.id)).map((x) => x.id))}: the range cuts a unit in two.`
          : `The source range of compaction ${c.id} includes the result of tool call ${callId} (${list(resultsIn.map((x) => x.id))}) but not the call (item ${callRec.id}): the range cuts a unit in two.`;
        out.push(finding('PAIR_SPLIT', 'error', message, [start.seq, callRec.seq, ...results.map((x) => x.seq)]));
      }
    }
    return out;
  },
};

/** The system prompt lives in the surface (DSH) when no separate, recorded system prompt is sent. */
function systemIsInSurface(ctx: RuleContext, seq: number): boolean {
  const s = ctx.facts.systemAt(seq);
  return s === undefined || s === null || s.length === 0;
}

export const SYSTEM_HEAD_COMPACTED: Rule = {
  id: 'SYSTEM_HEAD_COMPACTED',
  severities: ['error'],
  title: 'The system message at surface position 0 fell inside a compacted range',
  origins: ['004'],
  run(ctx) {
    const out: Diagnostic[] = [];
    const done = new Set<string>();
    for (const r of ctx.facts.removals) {
      const cut = describeCut(ctx, r.seq);
      if (!cut.compactionLike) continue;
      const head = ctx.facts.surfaceAt(r.seq).items[0];
      if (!head || head.item.role !== 'system' || !r.items.includes(head) || !systemIsInSurface(ctx, r.seq)) continue;
      done.add(cut.compactionId ?? `seq${r.seq}`);
      out.push(
        finding(
          'SYSTEM_HEAD_COMPACTED',
          'error',
          `${cut.what} took the system message ${itemRef(head.id, head.seq)} at surface position 0 off the view: the system head must stay outside every compacted range, or the next request loses its system prompt.`,
          [r.seq, head.seq],
        ),
      );
    }
    for (const c of ctx.facts.compactions) {
      if (done.has(c.id) || !c.start?.source || c.start.source.length === 0) continue;
      const head = ctx.facts.surfaceAt(c.start.seq).items[0];
      if (!head || head.item.role !== 'system' || !c.start.source.includes(head.id) || !systemIsInSurface(ctx, c.start.seq)) continue;
      out.push(
        finding(
          'SYSTEM_HEAD_COMPACTED',
          'error',
          `The source range of compaction ${c.id} starts with the system message ${itemRef(head.id, head.seq)} at surface position 0: the system head must never be part of a compacted range.`,
          [c.start.seq, head.seq],
        ),
      );
    }
    return out;
  },
};

export const PENDING_USER_SUMMARISED: Rule = {
  id: 'PENDING_USER_SUMMARISED',
  severities: ['warning'],
  title: 'An unanswered or queued user message was summarised instead of kept verbatim',
  origins: ['001'],
  run(ctx) {
    const out: Diagnostic[] = [];
    let answers: number[] | null = null;
    for (const c of ctx.facts.compactions) {
      if (c.commitSeq === null || c.shadowed.length === 0) continue;
      const commit = c.commitSeq;
      // The newest assistant item created before the commit: user messages after it are unanswered.
      answers ??= ctx.state.items
        .filter((rec) => rec.item.role === 'assistant' && !rec.item.derivation && ctx.facts.opOf(rec)?.op !== 'log')
        .map((rec) => rec.seq);
      const i = lowerBound(answers, commit) - 1;
      const lastAnswer = i >= 0 ? (answers[i] as number) : -1;
      // Only prompts await an answer: a local command's echo and its output (Claude Code's
      // `/model`, `/context` after its "DO NOT respond to these messages" caveat) ask for none.
      // (Not isPrompt: an origin does not make a message the harness's here — Rind names typed
      // prompts `user_prompt`.)
      const pending = c.shadowed.filter((x) => x.seq > lastAnswer && ctx.facts.isUserInstruction(x) && !isHarnessEcho(ctx, x));
      if (pending.length === 0) continue;
      const responded = c.shadowed.some((x) => x.item.role === 'assistant' && x.seq < (pending[0]?.seq ?? 0));
      if (!responded) continue;
      out.push(
        finding(
          'PENDING_USER_SUMMARISED',
          'warning',
          `Compaction ${c.id} summarised ${plural(pending.length, 'user message')} nobody had answered yet (${list(pending.map((x) => x.id))}): unanswered or queued user messages should stay verbatim after the checkpoint, so the agent still sees the request it has to act on.`,
          [commit, ...pending.map((x) => x.seq)],
        ),
      );
    }
    return out;
  },
};
