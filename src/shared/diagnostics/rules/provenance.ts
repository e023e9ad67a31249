import type { Diagnostic } from '../../model/diagnostic';
import type { ItemRecord } from '../../replay/records';
import { finding, list, plural } from '../text';
import type { Rule, RuleContext } from '../types';

/**
 * A replacement must prove what it displaced (DeepSeek Harness): a checkpoint names its compaction
 * and its sources cite the start, the summary and every shadowed event — and nothing it did not
 * shadow.
 */

/** The item an item event created or extended, by that event's seq. */
function itemsBySeq(ctx: RuleContext): Map<number, ItemRecord> {
  const m = new Map<number, ItemRecord>();
  for (const rec of ctx.state.items) {
    m.set(rec.seq, rec);
    for (const x of rec.extensions) m.set(x.seq, rec);
  }
  return m;
}

export const NO_PROVENANCE: Rule = {
  id: 'NO_PROVENANCE',
  severities: ['error', 'warning'],
  title: 'A checkpoint without compaction id or source seqs, or citing seqs it did not shadow',
  origins: ['004', '001'],
  run(ctx) {
    const out: Diagnostic[] = [];
    let bySeq: Map<number, ItemRecord> | null = null;
    for (const c of ctx.facts.compactions) {
      if (c.checkpoints.length === 0) continue;
      bySeq ??= itemsBySeq(ctx);
      const shadowed = new Set(c.shadowed);
      const own = new Set(c.checkpoints);
      const cited = new Set<ItemRecord>();
      const commit = c.commitSeq ?? c.checkpoints[0]?.seq ?? 0;
      const liveAfter = new Set(ctx.facts.surfaceAt(c.settledSeq + 1).items);
      const liveBefore = new Set(ctx.facts.surfaceAt(commit).items);
      for (const k of c.checkpoints) {
        if (c.id.trim() === '') {
          out.push(
            finding(
              'NO_PROVENANCE',
              'error',
              `Checkpoint ${k.id} names no compaction (empty compaction id): nothing ties it to the attempt that produced it.`,
              [k.seq],
            ),
          );
        }
        if (k.sources.length === 0) {
          out.push(
            finding(
              'NO_PROVENANCE',
              'error',
              `Checkpoint ${k.id} of compaction ${c.id} cites no source events: it cannot prove what it displaced. A commit cites its compaction/start, its summary and every shadowed event.`,
              [k.seq],
            ),
          );
          continue;
        }
        const inView: ItemRecord[] = [];
        const gone: ItemRecord[] = [];
        for (const s of k.sources) {
          const rec = bySeq.get(s);
          if (!rec || own.has(rec)) continue;
          cited.add(rec);
          if (shadowed.has(rec)) continue;
          if (liveAfter.has(rec)) inView.push(rec);
          else if (!liveBefore.has(rec)) gone.push(rec);
        }
        if (inView.length > 0) {
          out.push(
            finding(
              'NO_PROVENANCE',
              'error',
              `Checkpoint ${k.id} of compaction ${c.id} cites ${plural(inView.length, 'item')} it did not shadow (${list(inView.map((x) => x.id))}): ${inView.length === 1 ? 'it is' : 'they are'} still in the view after the commit, so the provenance claims a replacement that did not happen.`,
              [k.seq, ...inView.map((x) => x.seq)],
            ),
          );
        }
        if (gone.length > 0) {
          out.push(
            finding(
              'NO_PROVENANCE',
              'warning',
              `Checkpoint ${k.id} of compaction ${c.id} cites ${plural(gone.length, 'item')} that ${gone.length === 1 ? 'was' : 'were'} already off the view before it (${list(gone.map((x) => x.id))}): it did not shadow ${gone.length === 1 ? 'it' : 'them'}.`,
              [k.seq, ...gone.map((x) => x.seq)],
            ),
          );
        }
      }
      const missing = c.shadowed.filter((x) => !cited.has(x));
      if (missing.length > 0 && c.checkpoints.every((k) => k.sources.length > 0)) {
        const none = missing.length === c.shadowed.length;
        out.push(
          finding(
            'NO_PROVENANCE',
            'warning',
            none
              ? `The checkpoint of compaction ${c.id} cites none of the ${plural(c.shadowed.length, 'item')} the compaction took off the view: its provenance names the bracket but not what it replaced.`
              : `The checkpoint of compaction ${c.id} does not cite ${plural(missing.length, 'item')} the compaction took off the view (${list(missing.map((x) => x.id))}).`,
            [commit, ...missing.slice(0, 20).map((x) => x.seq)],
          ),
        );
      }
    }
    return out;
  },
};
