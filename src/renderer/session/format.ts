import type { FateRow, ViewItemRow } from '../../shared/api/contract';
import { grouped } from '../../shared/grouped';

/** Words and numbers of the session view. Everything returned is shown as text, never as markup. */

// Digits are grouped by hand (grouped), not by toLocaleString: a session view formats a number for
// every row it draws, and Chromium's toLocaleString cost 18 ms of the first view's 360 ms of page
// CPU on a 2.7 MB session (docs/performance.md, the commands).
export const num = (n: number | null | undefined): string =>
  n === null || n === undefined || !Number.isFinite(n) ? 'unknown' : grouped(Math.round(n));

/** 12,345 → "12.3k"; for axis labels where space is short. */
export function short(n: number): string {
  const a = Math.abs(n);
  if (a >= 1e6) return `${+(n / 1e6).toFixed(a >= 1e7 ? 0 : 1)}M`;
  if (a >= 1e3) return `${+(n / 1e3).toFixed(a >= 1e4 ? 0 : 1)}k`;
  return String(Math.round(n));
}

export const pct = (x: number | null | undefined): string =>
  x === null || x === undefined || !Number.isFinite(x) ? '—' : `${(x * 100).toFixed(1)} %`;

/** Characters as a size a reader grasps: 48,213 characters → "48.2k chars". */
export const chars = (n: number): string => `${short(n)} char${n === 1 ? '' : 's'}`;

export function fateTitle(f: FateRow): string {
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
      return f.fate;
  }
}

export function derivationLabel(it: Pick<ViewItemRow, 'derivation'>): string | null {
  const d = it.derivation;
  if (!d) return null;
  switch (d.kind) {
    case 'checkpoint':
      return `checkpoint ${d.compactionId} (${d.part}, covers ${d.covers.length})`;
    case 'pruned':
      return `pruned from ${d.of} (${d.omitted} ${d.unit} omitted)`;
    case 'reinjected':
      return `re-injected from ${d.of.join(', ')}`;
    case 'marker':
      return `marker for ${d.of.length} dropped${d.fallback ? ` (${d.fallback})` : ''}`;
  }
}

/** A duration: 1,234 ms → "1,234 ms"; null → "unknown". */
export const ms = (n: number | null | undefined): string =>
  n === null || n === undefined || !Number.isFinite(n) ? 'unknown' : `${grouped(Math.round(n))} ms`;
