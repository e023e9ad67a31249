import { grouped } from '../../shared/grouped';
/** Plain-text formatting for the library (shown as text, never as markup). */

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[u]}`;
}

/** A date and time to the minute, in the user's locale; the input itself when it is not a date. */
export function when(iso: string | null): string {
  if (iso === null) return 'unknown';
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? iso
    : // A date in the user's own locale, which grouped() does not write; one per row of the library.
      // eslint-disable-next-line no-restricted-syntax
      d.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

export const count = (n: number | null): string => (n === null ? 'unknown' : grouped(n));

/** The last part of a path (a file name, or a project folder's name). */
export function baseName(path: string): string {
  const parts = path.split(/[\\/]/).filter((p) => p !== '');
  return parts[parts.length - 1] ?? path;
}

/** "1 request", "3 requests", "unknown requests". */
export function counted(n: number | null, noun: string): string {
  return `${count(n)} ${noun}${n === 1 ? '' : 's'}`;
}

/** How recently a session's files must have changed for the library to mark it live (its harness is likely still writing it). */
const LIVE_MS = 5 * 60_000;

/** Whether a session modified at `modifiedAt` (ISO 8601) counts as live at `now` (ms since the epoch). */
export function isLive(modifiedAt: string, now: number): boolean {
  const t = Date.parse(modifiedAt);
  return !Number.isNaN(t) && now - t < LIVE_MS && t - now < LIVE_MS;
}
