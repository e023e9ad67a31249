import type { OpenSessionProgress } from '../../shared/api/contract';
import { grouped } from '../../shared/grouped';

/** How often the app asks the host how far the opens under way have got. */
export const OPEN_POLL_MS = 250;

/** Megabytes as the bench and the docs count them (10^6 bytes). */
const MB = 1_000_000;

export function megabytes(bytes: number): string {
  return bytes >= 10 * MB ? `${grouped(Math.round(bytes / MB))} MB` : `${(bytes / MB).toFixed(1)} MB`;
}

/** The fraction read, 0–1, when the host knows the size; null otherwise (a folder, or no report yet). */
export function openedFraction(p: OpenSessionProgress | undefined): number | null {
  if (!p || p.total === null || p.total === 0 || p.done === null) return null;
  if (p.phase !== 'reading') return 1;
  return Math.min(1, p.done / p.total);
}

/** One line of the status under the open bar: the path and how far its open has got. */
export function openingText(path: string, p: OpenSessionProgress | undefined): string {
  if (!p) return `Opening ${path}…`;
  // Between the last read and the first step of the replay the host does not answer: a file read
  // whole is being replayed.
  const phase = p.phase === 'reading' && p.total !== null && p.done !== null && p.done >= p.total ? 'replaying' : p.phase;
  const counted = p.phase === phase && p.done !== null && p.total !== null && p.total > 0;
  switch (phase) {
    case 'reading': {
      const read = p.done ?? 0;
      if (p.total === null) return `Opening ${path}: reading, ${megabytes(read)} so far…`;
      const pct = p.total > 0 ? Math.floor((100 * read) / p.total) : 100;
      return `Opening ${path}: reading ${pct} % (${megabytes(read)} of ${megabytes(p.total)})…`;
    }
    case 'replaying':
      return counted
        ? `Opening ${path}: read; replaying ${Math.floor((100 * (p.done as number)) / (p.total as number))} % of ${grouped(p.total as number)} events…`
        : `Opening ${path}: read; replaying…`;
    case 'checking':
      return counted
        ? `Opening ${path}: replayed; checking, ${p.done as number} of ${p.total as number} rules run…`
        : `Opening ${path}: replayed; checking…`;
    default:
      return `Opening ${path}…`;
  }
}
