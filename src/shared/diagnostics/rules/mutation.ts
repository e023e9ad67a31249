import type { Diagnostic } from '../../model/diagnostic';
import type { LogEvent } from '../../model/event';
import type { ItemRecord, RequestRecord } from '../../replay/records';
import { firstAfter, lastBefore } from '../../seq-search';
import { finding, list, num } from '../text';
import type { Rule, RuleContext } from '../types';

/**
 * Masking and pruning change what the model sees without a compaction. A change at surface
 * position k invalidates every provider's exact-prefix cache after k; only a tail change is
 * cache-neutral (cosh, model-view policy 1; the Conversation Compaction article, cache-aware
 * compaction).
 */

/** One event that changed the view: a mask or a clearing of several items is one mutation. */
interface Mutation {
  readonly seq: number;
  readonly targets: readonly string[];
  /** Who did what, to be followed by the items' names. */
  readonly what: string;
}

function mutations(ctx: RuleContext): Mutation[] {
  const out: Mutation[] = [];
  for (const e of ctx.facts.ofKinds('mask', 'item', 'drop')) {
    if (e.kind === 'mask' && e.masked) {
      out.push({
        seq: e.seq,
        targets: e.items,
        what: e.by === 'harness' ? 'The harness masked' : e.by === 'model' ? 'The model masked' : 'Masking of',
      });
    } else if (e.kind === 'item' && e.item.derivation?.kind === 'pruned' && e.op.op === 'replace') {
      out.push({ seq: e.seq, targets: [e.op.from], what: `Pruning (into ${e.item.id}) of` });
    } else if (e.kind === 'drop' && e.reason === 'cleared' && e.compactionId === undefined) {
      out.push({ seq: e.seq, targets: e.items, what: 'Clearing' });
    }
  }
  return out;
}

const cached = (r: RequestRecord): number | null =>
  r.usage && (r.usage.cacheRead !== undefined || r.usage.cacheWrite !== undefined)
    ? (r.usage.cacheRead ?? 0) + (r.usage.cacheWrite ?? 0)
    : null;

/** The cache the mutation cost: what the provider reported, else an estimate of the suffix, else nothing. */
function cacheCost(ctx: RuleContext, e: LogEvent, after: readonly ItemRecord[]): string {
  const prev = lastBefore(
    ctx.facts.agentRequestsWhere('cached', (r) => cached(r) !== null),
    e.seq,
  );
  const next = firstAfter(
    ctx.facts.agentRequestsWhere('cacheRead', (r) => r.usage?.cacheRead !== undefined),
    e.seq,
  );
  if (prev && next) {
    const lost = (cached(prev) as number) - (next.usage?.cacheRead ?? 0);
    if (lost > 0)
      return ` The next request (#${next.index}) read ${num(lost)} fewer cached tokens than request #${prev.index} had cached (reported by the provider).`;
    return ` The reported cache reads did not drop at the next request (#${next.index}); providers with an exact-prefix cache still recompute everything after it.`;
  }
  if (ctx.estimate) {
    const est = ctx.estimate;
    const n = after.reduce((s, rec) => s + est(ctx.facts.blocksOf(rec)), 0);
    return ` About ${num(n)} tokens after it must be recomputed at the next request (local estimate).`;
  }
  return ' The log reports no cache usage, so the cost is not measured here.';
}

export const MID_HISTORY_MUTATION: Rule = {
  id: 'MID_HISTORY_MUTATION',
  severities: ['warning'],
  title: 'Masking or pruning changed a position before the tail (prompt-cache cost)',
  origins: ['001', '002', '004'],
  run(ctx) {
    // One finding per event (a microcompact clears many tool results at once), at the earliest
    // position it changed: everything after that position lost its cache.
    const out: Diagnostic[] = [];
    for (const m of mutations(ctx)) {
      const surface = ctx.facts.surfaceAt(m.seq).items;
      const targets = new Set(m.targets);
      const positions: number[] = [];
      surface.forEach((r, i) => {
        if (targets.has(r.id)) positions.push(i);
      });
      const pos = positions[0];
      if (pos === undefined) continue;
      const after = surface.slice(pos + 1);
      // The tail: nothing after it but the changed items and the assistant turn that asked for the change.
      const tail = after.every((r) => targets.has(r.id) || (r.item.role === 'assistant' && ctx.facts.answersOf(r).length === 0));
      if (tail) continue;
      const e = ctx.facts.event(m.seq);
      if (!e) continue;
      const changed = positions.map((i) => surface[i] as ItemRecord);
      const where =
        changed.length === 1
          ? `${changed[0]?.id ?? ''} at surface position ${num(pos)}`
          : `${num(changed.length)} items (${list(changed.map((r) => r.id))}) at surface positions ${num(pos)} to ${num(positions[positions.length - 1] ?? pos)}`;
      out.push(
        finding(
          'MID_HISTORY_MUTATION',
          'warning',
          `${m.what} ${where} of ${num(surface.length)}, with ${num(after.length)} item${after.length === 1 ? '' : 's'} after ${changed.length === 1 ? 'it' : 'the first'}: a change before the tail invalidates the prompt cache of everything after it.${cacheCost(ctx, e, after)}`,
          [m.seq, ...changed.map((r) => r.seq)],
        ),
      );
    }
    return out;
  },
};
