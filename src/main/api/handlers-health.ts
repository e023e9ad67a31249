import type { z } from 'zod';
import type { CONTRACT, ApiOutput, HealthMethod } from '../../shared/api/contract';
import { healthReport } from '../../shared/health/report';
import type { HealthProblem, SessionHealth } from '../../shared/health/row';
import { SessionFilesHealthSource, type Target } from '../health/session-files';
import type { HealthProgress, HealthRows } from '../health/source';
import type { Library } from '../library/library';
import { contractOutput } from './conform';
import type { HandlerContext } from './handlers';
import { ApiFailure } from './sessions';

/**
 * Compaction health across the library's sessions (docs/health.md). The rows are read here, in
 * main, and kept for the handler table's life: switching the grouping or the day regroups them
 * without reading a session again. The machine's sessions come from the session index (updated
 * first, as search does); sessions of the folders and files the host was given, which the index
 * does not walk, are loaded (src/main/health/session-files.ts).
 *
 * First paint: the first answer is what the index (and the row cache) already hold, marked
 * `updating`, while the update runs; `settled` waits for it. A host whose index holds nothing yet
 * answers once the rows are read.
 *
 * A report asked for again (`refresh`) stops the build under way, which lets go of the index and
 * its reading threads at the next session: a caller waiting on the old build gets the new one's
 * rows. Disposing the handler table stops it too. A Health tab closed does not: the rows are kept
 * for the next time it opens.
 */

type HealthImpl = { readonly [M in HealthMethod]: (input: z.output<(typeof CONTRACT)[M]['input']>) => Promise<ApiOutput<M>> };

const EMPTY: HealthRows = { rows: [], problems: [], cached: 0, built: 0, notes: [] };

/** The two sources of a library: the index for the machine's sessions (when it can be written), loading for the rest. */
function sources(library: Library, targets: readonly (Target & { machine: boolean })[], notes: string[]) {
  const { source: index, problem } = library.healthIndex();
  if (problem) notes.push(`${problem}; every session is loaded instead`);
  const loaded = targets.filter((t) => index === null || !t.machine);
  return { index, loaded };
}

/** Rows of both sources as one: a session both list is counted once. */
function merge(parts: readonly HealthRows[]): HealthRows {
  const seen = new Set<string>();
  const rows: SessionHealth[] = [];
  const problems: HealthProblem[] = [];
  for (const p of parts) {
    for (const r of p.rows) if (!seen.has(r.key) && seen.add(r.key)) rows.push(r);
    problems.push(...p.problems);
  }
  return {
    rows,
    problems,
    cached: parts.reduce((n, p) => n + p.cached, 0),
    built: parts.reduce((n, p) => n + p.built, 0),
    notes: parts.flatMap((p) => p.notes),
  };
}

export function healthImplementations(ctx: HandlerContext): { impl: HealthImpl; dispose(): void } {
  let rows: Promise<HealthRows> | null = null;
  /** Stops the build under way (the one `rows` holds). */
  let stop: AbortController | null = null;
  let settled: HealthRows | null = null;
  let quick: Promise<HealthRows | null> | null = null;
  let progress: HealthProgress & { running: boolean } = { running: false, done: 0, total: 0, cached: 0 };

  const libraryOf = (): Library => {
    if (!ctx.library) throw new ApiFailure('NOT_AVAILABLE', 'This host has no library: run palimpsest report in a terminal instead.');
    return ctx.library;
  };

  const listed = async (library: Library, refresh: boolean) => {
    const listing = await library.discover(refresh);
    const notes = [...listing.problems];
    const targets = listing.sessions
      .filter((s) => s.harness !== null)
      .map((s) => {
        const many = s.harness === 'opencode' && s.id !== null;
        return {
          key: many ? `${s.path}#${s.id}` : s.path,
          path: s.path,
          ...(many ? { session: s.id as string } : {}),
          harness: s.harness as string,
          project: s.project,
          machine: s.origin === 'machine',
        };
      });
    return { ...sources(library, targets, notes), notes };
  };

  const build = async (refresh: boolean, signal: AbortSignal): Promise<HealthRows> => {
    const library = libraryOf();
    const { index, loaded, notes } = await listed(library, refresh);
    // A build stopped for another says nothing of its progress: the other's is shown.
    const tell = (p: HealthProgress): void => {
      if (!signal.aborted) progress = { ...p, running: true };
    };
    tell({ done: 0, total: loaded.length, cached: 0 });
    try {
      const fromIndex = index ? await index.rows(tell, signal) : EMPTY;
      const fromFiles = await new SessionFilesHealthSource({ targets: loaded }).rows(tell, signal);
      const r = merge([fromIndex, fromFiles]);
      return { ...r, notes: [...notes, ...r.notes] };
    } finally {
      if (!signal.aborted) progress = { ...progress, running: false };
    }
  };

  /** What the index and the row cache hold now, reading no session; null when they hold nothing. */
  const stored = async (): Promise<HealthRows | null> => {
    const { index, loaded, notes } = await listed(libraryOf(), false);
    const fromIndex = index?.stored() ?? EMPTY;
    const fromFiles = await new SessionFilesHealthSource({ targets: loaded, cachedOnly: true }).rows();
    const r = merge([fromIndex, fromFiles]);
    return r.rows.length === 0 ? null : { ...r, notes: [...notes, ...r.notes] };
  };

  const start = (refresh: boolean): Promise<HealthRows> => {
    stop?.abort();
    stop = new AbortController();
    const next = build(refresh, stop.signal);
    rows = next;
    next.then(
      (r) => {
        if (rows === next) settled = r;
      },
      // A failed build is not kept: the next call tries again.
      () => {
        if (rows === next) rows = null;
      },
    );
    return next;
  };

  /** The rows of `running`, or, when a newer build replaced it (and stopped it), of the newest. */
  const finished = async (running: Promise<HealthRows>): Promise<HealthRows> => {
    let current = running;
    for (;;) {
      const r = await current;
      if (rows === null || rows === current) return r;
      current = rows;
    }
  };

  const impl: HealthImpl = {
    async healthReport({ by, since, refresh, settled: wait }) {
      libraryOf();
      const filter = since !== undefined ? { since } : {};
      if (refresh === true) {
        settled = null;
        const r = await finished(start(true));
        return contractOutput('healthReport', { ...healthReport(r, by, filter), updating: false });
      }
      if (settled) return contractOutput('healthReport', { ...healthReport(settled, by, filter), updating: false });
      const running = rows ?? start(false);
      if (wait !== true) {
        quick ??= stored().catch(() => null);
        const first = await quick;
        if (first && !settled) return contractOutput('healthReport', { ...healthReport(first, by, filter), updating: true });
      }
      const r = await finished(running);
      return contractOutput('healthReport', { ...healthReport(r, by, filter), updating: false });
    },

    async healthProgress() {
      return contractOutput('healthProgress', progress);
    },
  };
  return { impl, dispose: () => stop?.abort() };
}
