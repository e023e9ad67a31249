import { z } from 'zod';
import type { SessionSummary } from '../../shared/api/contract';

/**
 * Recently opened sessions, kept in localStorage. Never any content: the path as opened, the
 * format, when, and counts (requests, compactions, the worst diagnostic severity) — nothing a
 * session says. What is read back is validated; anything else in the key is dropped.
 */

export const RECENT_KEY = 'palimpsest.recent.v1';
export const MAX_RECENT = 20;

const Worst = z.enum(['error', 'warning', 'info', 'none']);
export type Worst = z.infer<typeof Worst>;

const RecentEntry = z.object({
  path: z.string().min(1).max(4096),
  format: z.string().max(40),
  openedAt: z.string().max(40),
  requests: z.number().int().nonnegative(),
  compactions: z.number().int().nonnegative(),
  worst: Worst,
});
export type RecentEntry = z.infer<typeof RecentEntry>;

function storage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch (err: unknown) {
    console.warn('Palimpsest: localStorage is not available; recent sessions will not be remembered.', err);
    return null;
  }
}

export function loadRecent(): RecentEntry[] {
  const raw = storage()?.getItem(RECENT_KEY);
  if (!raw) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err: unknown) {
    console.warn('Palimpsest: the list of recent sessions was not JSON; starting a new one.', err);
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  return parsed
    .flatMap((e) => {
      const r = RecentEntry.safeParse(e);
      return r.success ? [r.data] : [];
    })
    .slice(0, MAX_RECENT);
}

function save(entries: readonly RecentEntry[]): void {
  storage()?.setItem(RECENT_KEY, JSON.stringify(entries));
}

export function worstOf(d: SessionSummary['counts']['diagnostics']): Worst {
  return d.error > 0 ? 'error' : d.warning > 0 ? 'warning' : d.info > 0 ? 'info' : 'none';
}

/** The entry of an opened session, built from its summary's counts only. */
export function entryOf(path: string, s: SessionSummary, at: Date): RecentEntry {
  return {
    path,
    format: s.format,
    openedAt: at.toISOString(),
    requests: s.counts.requests,
    compactions: s.counts.compactions,
    worst: worstOf(s.counts.diagnostics),
  };
}

/** Puts `entry` first (replacing the same path), keeps MAX_RECENT, saves, returns the list. */
export function remember(list: readonly RecentEntry[], entry: RecentEntry): RecentEntry[] {
  const next = [entry, ...list.filter((e) => e.path !== entry.path)].slice(0, MAX_RECENT);
  save(next);
  return next;
}

export function forget(list: readonly RecentEntry[], path: string): RecentEntry[] {
  const next = list.filter((e) => e.path !== path);
  save(next);
  return next;
}
