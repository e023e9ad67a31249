import type { RuleContext } from '../types';

/** What an event that took items off the view was, in words, and the compaction it belongs to. */
export function describeCut(ctx: RuleContext, seq: number): { what: string; compactionId: string | null; compactionLike: boolean } {
  const e = ctx.facts.event(seq);
  const bracket = ctx.facts.bracketAt(seq);
  if (e?.kind === 'item') {
    const d = e.item.derivation;
    if (d?.kind === 'checkpoint')
      return {
        what: `Compaction ${d.compactionId} (checkpoint ${e.item.id}, seq ${seq})`,
        compactionId: d.compactionId,
        compactionLike: true,
      };
    if (d?.kind === 'marker') {
      return {
        what: `The truncation marker ${e.item.id} (seq ${seq}${bracket ? `, compaction ${bracket.id}` : ''})`,
        compactionId: bracket?.id ?? null,
        compactionLike: true,
      };
    }
    if (d?.kind === 'pruned') return { what: `Pruning of item ${d.of} (seq ${seq})`, compactionId: null, compactionLike: false };
    if (d?.kind === 'reinjected')
      return {
        what: `The re-injected item ${e.item.id} (seq ${seq})`,
        compactionId: bracket?.id ?? null,
        compactionLike: bracket !== null,
      };
    return {
      what: `The replacement ${e.item.id} (seq ${seq}${bracket ? `, compaction ${bracket.id}` : ''})`,
      compactionId: bracket?.id ?? null,
      compactionLike: bracket !== null,
    };
  }
  if (e?.kind === 'drop') {
    const owner = e.compactionId ?? (e.reason === 'compaction' || e.reason === 'truncation' ? (bracket?.id ?? null) : null);
    const compactionLike = e.compactionId !== undefined || e.reason === 'compaction' || e.reason === 'truncation';
    return { what: `The drop at seq ${seq} (${e.reason}${owner ? `, compaction ${owner}` : ''})`, compactionId: owner, compactionLike };
  }
  return { what: `Event ${seq}`, compactionId: bracket?.id ?? null, compactionLike: bracket !== null };
}

/** Item id as a user reads it, with its seq. */
export const itemRef = (id: string, seq: number): string => `${id} (seq ${seq})`;
