import type { z } from 'zod';
import type { CONTRACT, ApiOutput, HealthMethod } from '../../shared/api/contract';
import { healthReport } from '../../shared/health/report';
import { SessionFilesHealthSource, type Target } from '../health/session-files';
import type { HealthProgress, HealthRows } from '../health/source';
import { contractOutput } from './conform';
import type { HandlerContext } from './handlers';
import { ApiFailure } from './sessions';

/**
 * Compaction health across the library's sessions (docs/health.md). The rows are built here, in
 * main, from the sessions the library lists (src/main/health), and kept for the handler table's
 * life: switching the grouping or the day regroups them without reading a session again.
 */

type HealthImpl = { readonly [M in HealthMethod]: (input: z.output<(typeof CONTRACT)[M]['input']>) => Promise<ApiOutput<M>> };

export function healthImplementations(ctx: HandlerContext): HealthImpl {
  let rows: Promise<HealthRows> | null = null;
  let progress: HealthProgress & { running: boolean } = { running: false, done: 0, total: 0, cached: 0 };

  const build = async (refresh: boolean): Promise<HealthRows> => {
    const library = ctx.library;
    if (!library) throw new ApiFailure('NOT_AVAILABLE', 'This host has no library: run palimpsest report in a terminal instead.');
    const listing = await library.discover(refresh);
    const targets: Target[] = listing.sessions
      .filter((s) => s.harness !== null)
      .map((s) => {
        const many = s.harness === 'opencode' && s.id !== null;
        return {
          key: many ? `${s.path}#${s.id}` : s.path,
          path: s.path,
          ...(many ? { session: s.id as string } : {}),
          harness: s.harness as string,
          project: s.project,
        };
      });
    progress = { running: true, done: 0, total: targets.length, cached: 0 };
    try {
      const r = await new SessionFilesHealthSource({ targets }).rows((p) => {
        progress = { ...p, running: true };
      });
      return { ...r, notes: [...listing.problems, ...r.notes] };
    } finally {
      progress = { ...progress, running: false };
    }
  };

  return {
    async healthReport({ by, since, refresh }) {
      if (!rows || refresh === true) {
        const next = build(refresh === true);
        rows = next;
        // A failed build is not kept: the next call tries again.
        next.catch(() => {
          if (rows === next) rows = null;
        });
      }
      const r = await rows;
      return contractOutput('healthReport', healthReport(r, by, since !== undefined ? { since } : {}));
    },

    async healthProgress() {
      return contractOutput('healthProgress', progress);
    },
  };
}
