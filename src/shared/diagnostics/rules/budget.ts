import type { Diagnostic } from '../../model/diagnostic';
import type { BudgetPolicy } from '../../model/event';
import type { ItemRecord, RequestRecord } from '../../replay/records';
import type { CompactionFacts } from '../facts';
import { isAutomatic, isFailedAttempt } from '../facts';
import { firstAfter, lastBefore, upperBound } from '../../seq-search';
import { finding, measureText, num, plural } from '../text';
import type { Measure } from '../measure';
import type { Rule, RuleContext } from '../types';
import { triggerLimits } from '../trigger';

/**
 * Sizes and budgets. Token numbers come from the provider's reported usage when the log has it,
 * from an estimator when one is plugged in (labelled), and otherwise the rule says nothing. The
 * budget policy is the one recorded on `compaction/start` (and the route's window) — never guessed.
 */

interface Sized {
  readonly req: RequestRecord;
  readonly m: Measure;
}

/** The last agent request of known size before `seq`, if it came after `after`. */
function lastAgentBefore(ctx: RuleContext, seq: number, after = -1): Sized | null {
  const s = lastBefore(ctx.facts.measuredAgentRequests, seq);
  return s && s.seq > after ? s : null;
}

/** The first agent request of known size after `seq`, if it came before `before`. */
function firstAgentAfter(ctx: RuleContext, seq: number, before = Number.POSITIVE_INFINITY): Sized | null {
  const s = firstAfter(ctx.facts.measuredAgentRequests, seq);
  return s && s.seq < before ? s : null;
}

/** The next compaction's first event after `c`, to bound "the first request after". */
function nextCompactionSeq(ctx: RuleContext, c: CompactionFacts): number {
  let next = Number.POSITIVE_INFINITY;
  for (const o of ctx.facts.compactions) if (o !== c && o.firstSeq > c.firstSeq && o.firstSeq < next) next = o.firstSeq;
  return next;
}

const startOf = (c: CompactionFacts): number => c.start?.seq ?? c.firstSeq;
const req = (s: Sized): string => `request #${s.req.index} (seq ${s.req.seq})`;

export const COMPACTION_GREW_CONTEXT: Rule = {
  id: 'COMPACTION_GREW_CONTEXT',
  severities: ['error'],
  title: 'The first request after a compaction is not smaller than the last one before it',
  origins: ['004', '002', 'users'],
  run(ctx) {
    const out: Diagnostic[] = [];
    for (const c of ctx.facts.compactions) {
      if (c.commitSeq === null) continue;
      const prev = ctx.facts.compactions
        .filter((o) => o !== c && o.commitSeq !== null && o.settledSeq < startOf(c))
        .reduce((n, o) => Math.max(n, o.settledSeq), -1);
      const before = lastAgentBefore(ctx, startOf(c), prev);
      const after = firstAgentAfter(ctx, Math.max(c.settledSeq, c.end?.seq ?? -1), nextCompactionSeq(ctx, c));
      if (!before || !after || before.m.source !== after.m.source) continue;
      if (after.m.value < before.m.value) continue;
      // The harness's own count of what it compacted, when it logs one: what was added after the
      // last request (tool results, the new prompt) is part of it, and a context smaller than that
      // did shrink, if not below the last request.
      const pre = c.start?.preTokens;
      if (pre !== undefined && after.m.value < pre) continue;
      out.push(
        finding(
          'COMPACTION_GREW_CONTEXT',
          'error',
          `The first request after compaction ${c.id}, ${req(after)}, sent ${measureText(after.m)}: not fewer than the ${num(before.m.value)} tokens of the last request before it, ${req(before)}${pre !== undefined ? `, nor than the ${num(pre)} tokens the compaction counted before it ran` : ''}. The compaction did not shrink the context it was run to shrink.`,
          [after.req.seq, c.commitSeq, before.req.seq],
        ),
      );
    }
    return out;
  },
};

function windowOf(policy: BudgetPolicy | null, fallback: number | undefined): number | null {
  return policy?.window ?? fallback ?? null;
}

export const BUDGET_EXCEEDED: Rule = {
  id: 'BUDGET_EXCEEDED',
  severities: ['error'],
  title: 'A committed view exceeds window − output reserve − headroom',
  origins: ['000', '001', '004'],
  run(ctx) {
    const out: Diagnostic[] = [];
    for (const c of ctx.facts.compactions) {
      if (c.commitSeq === null || !c.policy) continue;
      const after = firstAgentAfter(ctx, Math.max(c.settledSeq, c.end?.seq ?? -1), nextCompactionSeq(ctx, c));
      const window = windowOf(c.policy, after?.req.route.window ?? ctx.facts.routeAt(startOf(c)).window);
      if (window === null) continue;
      const reserve = c.policy.outputReserve ?? 0;
      const headroom = c.policy.headroom ?? 0;
      const budget = window - reserve - headroom;
      let m: Measure | null = after?.m ?? null;
      let where = after ? `the first request after it, ${req(after)},` : '';
      if (!m && c.end?.postTokens !== undefined) {
        m = { value: c.end.postTokens, unit: 'tokens', source: 'harness' };
        where = 'the committed view';
      }
      if (!m || m.value <= budget) continue;
      const parts = [`window ${num(window)}`];
      if (reserve > 0) parts.push(`output reserve ${num(reserve)}`);
      if (headroom > 0) parts.push(`headroom ${num(headroom)}`);
      out.push(
        finding(
          'BUDGET_EXCEEDED',
          'error',
          `After compaction ${c.id}, ${where} held ${measureText(m)}: over the commit budget of ${num(budget)} tokens (${parts.join(' − ')}, from the policy recorded at its start). A handoff that does not fit must be rejected without changing the view.`,
          [after?.req.seq ?? c.end?.seq ?? c.commitSeq, c.commitSeq, c.start?.seq ?? c.commitSeq],
        ),
      );
    }
    return out;
  },
};

/** The items of `shadowed` that form the unit of its last item (a call with its results). */
function lastUnit(ctx: RuleContext, shadowed: readonly ItemRecord[]): ItemRecord[] {
  const last = shadowed[shadowed.length - 1];
  if (!last) return [];
  const unit = new Set<ItemRecord>([last]);
  for (const id of ctx.facts.answersOf(last)) {
    const call = ctx.facts.callItem.get(id);
    if (call && shadowed.includes(call)) unit.add(call);
  }
  for (const id of ctx.facts.callsOf(last)) for (const r of ctx.facts.resultItems.get(id) ?? []) if (shadowed.includes(r)) unit.add(r);
  for (const rec of [...unit]) {
    for (const id of ctx.facts.callsOf(rec)) for (const r of ctx.facts.resultItems.get(id) ?? []) if (shadowed.includes(r)) unit.add(r);
  }
  return [...unit];
}

export const RAW_TAIL_VIOLATED: Rule = {
  id: 'RAW_TAIL_VIOLATED',
  severities: ['warning'],
  title: 'The recent raw tail kept verbatim is smaller than the policy reserves',
  origins: ['001', '002', '004'],
  run(ctx) {
    const out: Diagnostic[] = [];
    for (const c of ctx.facts.compactions) {
      const p = c.policy;
      if (c.commitSeq === null || !p || c.shadowed.length === 0 || c.record.trigger === 'manual') continue;
      if (p.rawTailMessages === undefined && p.rawTailTokens === undefined && p.rawTailRatio === undefined) continue;
      const after = ctx.facts.surfaceAt(c.settledSeq + 1).items;
      const own = new Set([...c.checkpoints, ...c.markers]);
      let pos = -1;
      after.forEach((rec, i) => {
        if (own.has(rec)) pos = i;
      });
      if (pos < 0) continue;
      const tail = after.slice(pos + 1).filter((rec) => !rec.item.derivation && rec.item.role !== 'system');
      const unit = lastUnit(ctx, c.shadowed);
      const seqs = [c.commitSeq, ...unit.map((x) => x.seq)];
      if (p.rawTailMessages !== undefined) {
        if (tail.length < p.rawTailMessages && tail.length + unit.length <= p.rawTailMessages) {
          out.push(
            finding(
              'RAW_TAIL_VIOLATED',
              'warning',
              `Compaction ${c.id} kept ${plural(tail.length, 'message')} verbatim after its checkpoint, but its policy reserves the last ${plural(p.rawTailMessages, 'message')}; the newest summarised unit (${unit.map((x) => x.id).join(', ')}) would have fitted in the reserved tail.`,
              seqs,
            ),
          );
        }
        continue;
      }
      const window = windowOf(p, ctx.facts.routeAt(startOf(c)).window);
      const reserve = p.rawTailTokens ?? (p.rawTailRatio !== undefined && window !== null ? Math.floor(p.rawTailRatio * window) : null);
      const est = ctx.estimate;
      if (reserve === null || !est) continue; // Token sizes of single items: only an estimator can tell.
      const size = (recs: readonly ItemRecord[]) => recs.reduce((n, rec) => n + est(ctx.facts.blocksOf(rec)), 0);
      const tailTokens = size(tail);
      const unitTokens = size(unit);
      if (tailTokens < reserve && tailTokens + unitTokens <= reserve) {
        out.push(
          finding(
            'RAW_TAIL_VIOLATED',
            'warning',
            `Compaction ${c.id} kept a raw tail of about ${num(tailTokens)} tokens (local estimate), but its policy reserves ${num(reserve)} tokens${p.rawTailRatio !== undefined && p.rawTailTokens === undefined ? ` (${Math.round(p.rawTailRatio * 100)} % of the ${num(window ?? 0)}-token window)` : ''}; the newest summarised unit (about ${num(unitTokens)} tokens) would have fitted in the reserved tail.`,
            seqs,
          ),
        );
      }
    }
    return out;
  },
};

export const TRIGGER_MISSED: Rule = {
  id: 'TRIGGER_MISSED',
  severities: ['warning', 'info'],
  title: 'A request went past the compaction trigger and no compaction ran',
  origins: ['002', '004', '001'],
  run(ctx) {
    const trigger = triggerLimits(ctx);
    if (!trigger) return [];
    const { preset, limitAt, seenFor } = trigger;
    const starts = ctx.facts.compactions.map((c) => c.start?.seq ?? c.firstSeq).sort((a, b) => a - b);
    const startBetween = (a: number, b: number): boolean => {
      const next = starts[upperBound(starts, a)];
      return next !== undefined && next < b;
    };
    const failures = ctx.facts.compactions.filter((c) => isAutomatic(c) && isFailedAttempt(c));
    const rs = ctx.facts.agentRequests;
    interface Miss {
      i: number;
      value: Measure;
      limit: number;
      deferredBy: CompactionFacts | null;
    }
    const misses: Miss[] = [];
    for (let i = 0; i < rs.length - 1; i++) {
      const r = rs[i] as RequestRecord;
      const m = ctx.facts.requestTokens(r);
      if (!m) continue;
      const limit = limitAt(r);
      if (limit === null || m.value < limit) continue;
      const prevSeq = i > 0 ? (rs[i - 1] as RequestRecord).seq : -1;
      const nextSeq = (rs[i + 1] as RequestRecord).seq;
      if (startBetween(prevSeq, nextSeq)) continue;
      const turn = ctx.facts.turnAt(r.seq);
      const deferredBy = failures.filter((c) => c.firstSeq < r.seq && ctx.facts.turnAt(c.firstSeq) === turn).pop() ?? null;
      misses.push({ i, value: m, limit, deferredBy });
    }
    // What a compaction the log does not show may have been: a failure this client does not log,
    // or, where the header says the log records none at all, any compaction.
    const unseen = (seq: number): string => {
      const why = unloggedBefore(ctx, seq);
      return why
        ? `${why}, so one may have run here unseen, or failed`
        : 'This client does not log a failed automatic compaction, so one may have failed here unseen';
    };
    const out: Diagnostic[] = [];
    for (let k = 0; k < misses.length;) {
      let j = k;
      while (
        j + 1 < misses.length &&
        (misses[j + 1] as Miss).i === (misses[j] as Miss).i + 1 &&
        ((misses[j + 1] as Miss).deferredBy === null) === ((misses[k] as Miss).deferredBy === null)
      )
        j++;
      const first = misses[k] as Miss;
      const last = misses[j] as Miss;
      const r0 = rs[first.i] as RequestRecord;
      const r1 = rs[last.i] as RequestRecord;
      const which =
        first === last
          ? `Request #${r0.index} (seq ${r0.seq}) sent ${measureText(first.value)}`
          : `Requests #${r0.index}–#${r1.index} (seq ${r0.seq}–${r1.seq}) each sent at least ${num(Math.min(...misses.slice(k, j + 1).map((x) => x.value.value)))} tokens`;
      const seqs = misses.slice(k, j + 1).map((x) => (rs[x.i] as RequestRecord).seq);
      const seen = seenFor(r0);
      if (seen) {
        out.push(
          finding(
            'TRIGGER_MISSED',
            'info',
            `${which}, at or past the ${num(seen.at)} tokens at which ${preset?.name ?? ''} ${seen.version} with ${seen.model} compacted automatically on the wire${seen.below !== null ? ` (it sent ${num(seen.below)} uncompacted)` : ''}, from the version table (docs/compatibility.md; the log records no policy), and no compaction is logged before ${first === last ? 'the next request' : 'the last of them'}. ${unseen(r0.seq)}: an inference from usage, not a recorded fact (docs/fidelity.md).`,
            seqs,
          ),
        );
      } else if (preset) {
        out.push(
          finding(
            'TRIGGER_MISSED',
            'info',
            `${which}, past the ${num(first.limit)}-token automatic compaction trigger of ${preset.name}'s documented policy (${preset.description}${r0.route.window !== undefined ? `, on the ${num(r0.route.window)}-token window the log records` : ''}; the log records no policy), and no compaction is logged before ${first === last ? 'the next request' : 'the last of them'}. ${unseen(r0.seq)}: an inference from usage, not a recorded fact (docs/fidelity.md).`,
            seqs,
          ),
        );
      } else if (first.deferredBy) {
        out.push(
          finding(
            'TRIGGER_MISSED',
            'info',
            `${which}, past the compaction trigger of ${num(first.limit)} tokens, and no compaction ran around ${first === last ? 'it' : 'them'}: deferred, because compaction ${first.deferredBy.id} failed earlier in the same turn (a failure defers threshold-triggered attempts until the next turn).`,
            [...seqs, first.deferredBy.firstSeq],
          ),
        );
      } else {
        out.push(
          finding(
            'TRIGGER_MISSED',
            'warning',
            `${which}, past the compaction trigger of ${num(first.limit)} tokens (from the recorded policy), and no compaction ran before ${first === last ? 'it or the next request' : 'them'}: the context keeps growing toward the window.`,
            seqs,
          ),
        );
      }
      k = j + 1;
    }
    return out;
  },
};

/** The latest header's word before `seq` that the log may not record a compaction at all (HeaderEvent.compactionUnlogged). */
function unloggedBefore(ctx: RuleContext, seq: number): string | null {
  let at = -1;
  let why: string | null = null;
  for (const e of ctx.facts.ofKinds('header'))
    if (e.seq < seq && e.seq > at && e.compactionUnlogged !== undefined) {
      at = e.seq;
      why = e.compactionUnlogged || null;
    }
  return why;
}

export const WINDOW_CHANGED: Rule = {
  id: 'WINDOW_CHANGED',
  severities: ['warning'],
  title: 'The context window changed after a compaction, with no change of model',
  origins: ['001'],
  run(ctx) {
    const out: Diagnostic[] = [];
    const done = new Set<string>();
    const windowed = ctx.facts.agentRequestsWhere('window', (r) => r.route.window !== undefined);
    for (const c of ctx.facts.compactions) {
      if (c.end === null && c.commitSeq === null) continue;
      const beforeReq = lastBefore(windowed, startOf(c));
      const afterReq = firstAfter(windowed, Math.max(c.settledSeq, c.end?.seq ?? -1));
      if (!beforeReq || !afterReq) continue;
      const a = beforeReq.route;
      const b = afterReq.route;
      if (a.window === b.window || a.model !== b.model || a.provider !== b.provider) continue;
      done.add(c.id);
      out.push(
        finding(
          'WINDOW_CHANGED',
          'warning',
          `The agent's context window changed from ${num(a.window ?? 0)} to ${num(b.window ?? 0)} tokens across compaction ${c.id} (request #${beforeReq.index} → #${afterReq.index}), with the same model: a summarizer's window or an overflow must not resize the agent's budget; only a provider report of a smaller window may.`,
          [afterReq.seq, c.commitSeq ?? c.end?.seq ?? c.firstSeq, beforeReq.seq],
        ),
      );
    }
    // The budget policy's window between successive compactions.
    const withWindow = ctx.facts.compactions.filter((c) => c.start?.policy?.window !== undefined);
    for (let i = 1; i < withWindow.length; i++) {
      const p = withWindow[i - 1] as CompactionFacts;
      const c = withWindow[i] as CompactionFacts;
      if (done.has(c.id) || (p.commitSeq === null && p.end === null)) continue;
      const wa = p.start?.policy?.window;
      const wb = c.start?.policy?.window;
      if (wa === wb) continue;
      const ra = ctx.facts.routeAt(startOf(p));
      const rb = ctx.facts.routeAt(startOf(c));
      if (ra.model !== rb.model || ra.provider !== rb.provider) continue;
      out.push(
        finding(
          'WINDOW_CHANGED',
          'warning',
          `The context window of the budget policy changed from ${num(wa ?? 0)} to ${num(wb ?? 0)} tokens after compaction ${p.id} (policy of ${p.id} → ${c.id}), with no change of model: a summarizer overflow or a repartition must not resize the agent's context budget; only a provider report of a smaller window may.`,
          [startOf(c), startOf(p)],
        ),
      );
    }
    return out;
  },
};
