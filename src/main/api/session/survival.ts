import { MAX_LOST_SHOWN } from '../../../shared/api/session-shapes';
import type { CompactionSurvival } from '../../../shared/forensics/compaction';
import { branchSurvival } from '../../session/forensics';
import type { SessionInspector } from '../../session/inspector';

/*
 * The survival section of a compaction's detail. A branch's survival is measured for all its
 * compactions at once (their texts re-read together), so it is kept per inspector and branch: the
 * panel asks for one compaction after another. An inspector is not changed once loaded (following a
 * session opens a new one), so nothing goes stale.
 */

const measured = new WeakMap<SessionInspector, Map<string, Promise<CompactionSurvival[]>>>();

function ofBranch(inspector: SessionInspector, branch: string): Promise<CompactionSurvival[]> {
  let byBranch = measured.get(inspector);
  if (!byBranch) measured.set(inspector, (byBranch = new Map()));
  let p = byBranch.get(branch);
  if (!p) {
    p = branchSurvival(inspector, branch);
    byBranch.set(branch, p);
    // A failed measure is not kept: the next ask measures again.
    p.catch(() => byBranch?.delete(branch));
  }
  return p;
}

/** The survival of compaction `id` on `branch`, or null when it replaced nothing. */
export async function compactionSurvival(inspector: SessionInspector, branch: string, id: string) {
  const s = (await ofBranch(inspector, branch)).find((x) => x.id === id);
  if (!s) return null;
  return {
    survival: s.survival,
    lost: s.lost.slice(0, MAX_LOST_SHOWN).map((a) => ({ category: a.category, text: a.text, seq: a.seq })),
    lostTotal: s.lost.length,
    replaced: s.replaced,
    kept: s.kept,
    opaque: s.opaque,
  };
}
