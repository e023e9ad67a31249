import type { ViewDiffRow } from '../../../shared/api/contract';
import type { ViewItem } from '../../../shared/model/view';
import { fateAt } from '../../../shared/replay/view';
import { preview } from './text';
import type { ViewIndex } from './view-index';

/**
 * View N against view M (docs/session-view.md): which items one has and the other has not, and which
 * changed between them (masked or unmasked, extended by a later record). Items are matched by id:
 * an item is the same unit of conversation in both views, whatever position it holds.
 */

function change(a: ViewItem, b: ViewItem): string | null {
  if (a.rendition !== b.rendition) return `${a.rendition} → ${b.rendition}`;
  if (a.provenance.length !== b.provenance.length || a.provenance.some((s, i) => b.provenance[i] !== s)) {
    const more = b.provenance.length - a.provenance.length;
    return more > 0 ? `extended by ${more} more record${more === 1 ? '' : 's'}` : 'provenance changed';
  }
  if (a.blocks !== b.blocks && JSON.stringify(a.blocks) !== JSON.stringify(b.blocks)) return 'content changed';
  return null;
}

/** What became of an item of view a that view b no longer shows, in words. */
function whereTo(b: ViewIndex, item: ViewItem): string {
  const rec = b.state.itemById.get(item.id);
  const f = rec ? fateAt(rec, b.view.request.seq) : null;
  if (!f) return 'not in view b';
  switch (f.fate) {
    case 'summarised':
      return `summarised by ${f.by} (compaction ${f.compactionId})`;
    case 'pruned':
      return `pruned: ${f.by} stands in its place`;
    case 'dropped':
      return `dropped (${f.reason})${f.by ? ` by ${f.by}` : ''}`;
    case 'reinjected':
      return `re-injected by ${f.by}`;
    default:
      return `${f.fate}, not shown to the summarizer call`;
  }
}

function row(change: ViewDiffRow['change'], it: ViewItem, a: number | null, b: number | null, detail: string): ViewDiffRow {
  return { change, id: it.id, seq: it.seq, kind: it.kind, role: it.role, a, b, detail, preview: preview(it.blocks) };
}

export function diffViews(a: ViewIndex, b: ViewIndex, limit: number) {
  const rows: ViewDiffRow[] = [];
  const counts = { added: 0, removed: 0, changed: 0, same: 0 };
  const push = (r: ViewDiffRow): void => {
    counts[r.change]++;
    if (rows.length < limit) rows.push(r);
  };
  a.view.items.forEach((it, pa) => {
    const pb = b.positionById.get(it.id);
    if (pb === undefined) {
      push(row('removed', it, pa, null, whereTo(b, it)));
      return;
    }
    const other = b.view.items[pb] as ViewItem;
    const c = change(it, other);
    if (c === null) counts.same++;
    else push(row('changed', other, pa, pb, c));
  });
  b.view.items.forEach((it, pb) => {
    if (!a.positionById.has(it.id))
      push(
        row(
          'added',
          it,
          null,
          pb,
          it.derivation ? `${it.derivation.kind}` : it.seq > a.view.request.seq ? 'written after request a' : 'not in view a',
        ),
      );
  });
  return { a: a.index, b: b.index, counts, rows, truncated: rows.length < counts.added + counts.removed + counts.changed };
}
