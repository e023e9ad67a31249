import { describe, expect, it } from 'vitest';
import { importValues, readFixture, SAMPLES, views } from './helpers';

/*
 * Ghost snapshots (`ghost_snapshot`, Codex's /undo commits) are logged but filtered out of every
 * prompt. Codex 0.7x also carries them in a remote compaction's `replacement_history`, and there
 * too they must stay out of the model view. The real 0.104 rollout with a remote compaction, with
 * one stated edit: a ghost snapshot in the shape Codex 0.7x writes, logged before the compaction
 * and carried in its replacement history.
 */

const GHOST = {
  type: 'ghost_snapshot',
  ghost_commit: {
    id: '4a64dbe748cb7517d3d4ba75fc65861104c63bab',
    parent: '4272a68afdf63f79a34d5956e90413609dbcbeff',
    preexisting_untracked_files: [],
    preexisting_untracked_dirs: [],
  },
};

function withGhosts(): Record<string, unknown>[] {
  const values = readFixture(SAMPLES.remote);
  const at = values.findIndex((v) => v.type === 'compacted');
  const compacted = values[at] as { timestamp: string; payload: { replacement_history: unknown[] } };
  const history = [...compacted.payload.replacement_history];
  history.splice(history.length - 1, 0, GHOST);
  const edited = { ...compacted, payload: { ...compacted.payload, replacement_history: history } };
  return [
    ...values.slice(0, at),
    { timestamp: compacted.timestamp, type: 'response_item', payload: GHOST },
    edited,
    ...values.slice(at + 1),
  ];
}

describe('ghost snapshots around a remote compaction', () => {
  it('are display-only before and after it: no model view holds one', () => {
    const r = importValues(withGhosts(), SAMPLES.remote);
    const ghosts = r
      .of('item')
      .filter((e) => e.item.origin === 'ghost_snapshot' || JSON.stringify(e.item.blocks).includes('codex:ghost_snapshot'));
    expect(ghosts).toHaveLength(2);
    expect(ghosts.map((e) => e.op.op)).toEqual(['log', 'log']);
    const { state, view } = views(r);
    const after = state.requests.findIndex((q) => q.seq > (r.of('compaction/end')[0]?.seq ?? Infinity) && q.compactionId === null);
    expect(after).toBeGreaterThan(0);
    for (const i of [after - 2, after]) {
      expect(view(i).items.some((it) => JSON.stringify(it.blocks ?? []).includes('ghost_snapshot'))).toBe(false);
    }
    // The edit changes nothing else: the same view as the unedited rollout's.
    const plain = views(importValues(readFixture(SAMPLES.remote), SAMPLES.remote));
    expect(view(after).items.map((it) => it.role)).toEqual(plain.view(after).items.map((it) => it.role));
  });
});
