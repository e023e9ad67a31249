import type { DiscoveredSession } from '../../shared/api/contract';
import type { HarnessFilter } from './library-slice';

/**
 * Filtering the library's list: every word of the filter must appear (case-insensitively) in the
 * session's path, project, title, model, harness or id; the harness chip narrows it further.
 */

function haystack(s: DiscoveredSession): string {
  return [s.path, s.project ?? '', s.title ?? '', s.model ?? '', s.harness ?? 'unknown', s.id ?? ''].join('\n').toLowerCase();
}

export function filterSessions(list: readonly DiscoveredSession[], filter: string, harness: HarnessFilter): DiscoveredSession[] {
  const words = filter
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== '');
  return list.filter((s) => {
    if (harness !== 'all' && (s.harness ?? 'unknown') !== harness) return false;
    if (words.length === 0) return true;
    const h = haystack(s);
    return words.every((w) => h.includes(w));
  });
}

/** How many sessions each harness has (the chips), in the order harnesses first appear. */
export function harnessCounts(list: readonly DiscoveredSession[]): [HarnessFilter, number][] {
  const counts = new Map<HarnessFilter, number>();
  for (const s of list) {
    const h = s.harness ?? 'unknown';
    counts.set(h, (counts.get(h) ?? 0) + 1);
  }
  return [...counts];
}
