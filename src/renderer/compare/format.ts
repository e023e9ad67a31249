import { grouped } from '../../shared/grouped';
/** Numbers as the re-run panel and the compare view show them. null: not known (never 0). */

export const num = (n: number | null | undefined): string => (n === null || n === undefined ? '—' : grouped(n));

export const pct = (r: number | null | undefined): string => (r === null || r === undefined ? '—' : `${Math.round(r * 100)}%`);

export const usd = (n: number | null | undefined): string =>
  n === null || n === undefined ? '—' : `$${n < 0.01 && n > 0 ? n.toFixed(4) : n.toFixed(2)}`;

export function ms(n: number | null | undefined): string {
  if (n === null || n === undefined) return '—';
  return n < 1000 ? `${Math.round(n)} ms` : `${(n / 1000).toFixed(1)} s`;
}

/** "12:04:31" today, else the date too. */
export function when(iso: string, now: Date = new Date()): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const time = d.toLocaleTimeString('en-GB', { hour12: false });
  return d.toDateString() === now.toDateString() ? time : `${d.toISOString().slice(0, 10)} ${time}`;
}

export function targetLabel(t: { readonly compaction: string } | { readonly request: number }): string {
  return 'compaction' in t ? `compaction ${t.compaction}` : `request #${t.request}`;
}
