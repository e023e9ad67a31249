import type { Block } from '../../shared/model/content';
import { blockIsElided } from '../../shared/model/content';
import { Facts } from '../../shared/diagnostics/facts';
import type { ItemRecord } from '../../shared/replay/records';
import { afterOf, sessionSurvival, type CompactionSurvival } from '../../shared/forensics/compaction';
import type { SessionInspector } from './inspector';

/*
 * Compaction forensics of one branch, on whole texts: the items each compaction replaced and kept,
 * its checkpoints and its summary are re-read from the source where memory holds only a preview
 * (long texts are elided), so that no anchor is counted lost because it was past a preview's end.
 */

export async function branchSurvival(inspector: SessionInspector, branch = inspector.defaultBranch): Promise<CompactionSurvival[]> {
  const state = inspector.replay(branch);
  const shallow = new Facts(inspector.session.events, state, new Map(), null);
  const wanted = new Set<number>();
  const want = (rec: ItemRecord): void => {
    if (rec.item.blocks.some(blockIsElided)) wanted.add(rec.seq);
    for (const x of rec.extensions) if (x.blocks.some(blockIsElided)) wanted.add(x.seq);
  };
  for (const c of shallow.compactions) {
    if (c.commitSeq === null || c.shadowed.length === 0) continue;
    for (const rec of c.shadowed) want(rec);
    for (const rec of c.checkpoints) want(rec);
    for (const rec of shallow.surfaceAt(afterOf(c)).items) want(rec);
    if (c.committedSummary?.summary.some(blockIsElided)) wanted.add(c.committedSummary.seq);
  }
  const full = new Map<number, readonly Block[]>();
  const seqs = [...wanted].sort((a, b) => a - b);
  if (seqs.length > 0) {
    try {
      const whole = await inspector.session.hydrateMany(seqs);
      seqs.forEach((seq, i) => {
        const e = whole[i];
        if (e?.kind === 'item') full.set(seq, e.item.blocks);
        else if (e?.kind === 'compaction/summary') full.set(seq, e.summary);
      });
    } catch {
      // The file changed or cannot be read: measure on the previews rather than fail.
    }
  }
  return sessionSurvival(full.size === 0 ? shallow : shallow.withTexts(full));
}
