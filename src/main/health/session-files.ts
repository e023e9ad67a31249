import { stat } from 'node:fs/promises';
import { indexDir } from '../discovery/cache-folder';
import { type DiscoverOptions, type Discovery, discoverSessions } from '../discovery/discover';
import { scanInParallel } from '../discovery/parallel';
import type { Harness } from '../discovery/types';
import { SessionInspector } from '../session/inspector';
import { loadSession } from '../session/load';
import { claimedDirectory, SEARCH_DEPTH, sessionsUnder } from '../session/targets';
import type { HealthProblem, SessionHealth } from '../../shared/health/row';
import { HealthCache } from './cache';
import { sessionHealth } from './row';
import type { HealthProgress, HealthRows, HealthSource } from './source';

/** A session to read: what opens it, and what discovery already knows of it. */
export interface Target {
  readonly key: string;
  readonly path: string;
  readonly session?: string;
  readonly harness?: string;
  readonly project?: string | null;
}

export interface SessionFilesOptions {
  /** The sessions to read, already listed (the app's library); else `dir`, else discovery. */
  readonly targets?: readonly Target[];
  /** A folder (or one session) to read; absent: every harness's sessions, as `ls` finds them. */
  readonly dir?: string;
  /** `--root HARNESS=PATH`: replaces that harness's default roots (without `dir`). */
  readonly roots?: readonly { harness: Harness; path: string }[];
  /** Keep rows (and `ls`'s index) between runs; default true. */
  readonly useCache?: boolean;
  /**
   * Lists the sessions when there are no `targets` nor `dir`: default a scan of every session
   * (discoverSessions); the CLI passes the session index's listing (src/main/catalog/list.ts).
   */
  readonly list?: (options: DiscoverOptions) => Promise<Discovery>;
  /** The cache folder; default Palimpsest's (indexDir). */
  readonly cacheDir?: string;
  /** Sessions loaded at once; default 2. */
  readonly concurrency?: number;
  /** Only the rows the cache holds, loading nothing (a first paint before the rows are read). */
  readonly cachedOnly?: boolean;
}

/**
 * Rows built from the session files themselves: discovery (or a folder), then one load per session
 * that the cache does not hold. Loads overlap (`concurrency`): reading a file waits on the disk,
 * and a large one is read in byte ranges by worker threads (src/main/session/strategy.ts).
 */
export class SessionFilesHealthSource implements HealthSource {
  constructor(private readonly options: SessionFilesOptions = {}) {}

  private async targets(notes: string[]): Promise<readonly Target[]> {
    if (this.options.targets) return this.options.targets;
    const dir = this.options.dir;
    if (dir !== undefined) {
      const info = await stat(dir);
      if (!info.isDirectory() || (await claimedDirectory(dir)) === 'session') return [{ key: dir, path: dir }];
      const notSearched: string[] = [];
      const files = await sessionsUnder(dir, SEARCH_DEPTH, notSearched);
      for (const p of notSearched) notes.push(`${p} is deeper than ${SEARCH_DEPTH} folders and was not searched`);
      return files.map((p) => ({ key: p, path: p }));
    }
    const d = await (this.options.list ?? discoverSessions)({
      roots: this.options.roots ?? [],
      useIndex: this.options.useCache !== false,
      scanMany: scanInParallel,
    });
    notes.push(...d.index.problems, ...d.problems);
    return d.sessions.map((s) => {
      // A database holds many sessions: each opens by its id.
      const many = s.harness === 'opencode' && s.id !== null;
      return {
        key: many ? `${s.path}#${s.id}` : s.path,
        path: s.path,
        ...(many ? { session: s.id as string } : {}),
        harness: s.harness,
        project: s.project,
      };
    });
  }

  async rows(onProgress?: (p: HealthProgress) => void, signal?: AbortSignal): Promise<HealthRows> {
    const notes: string[] = [];
    const targets = await this.targets(notes);
    const cache =
      this.options.useCache === false
        ? HealthCache.none()
        : HealthCache.open(this.options.cacheDir ?? indexDir(), { roots: this.options.roots ?? [] });
    const rows: (SessionHealth | null)[] = new Array<SessionHealth | null>(targets.length).fill(null);
    const problems: HealthProblem[] = [];
    let cached = 0;
    let built = 0;
    let done = 0;
    const tell = (): void => onProgress?.({ done, total: targets.length, cached });
    const todo: number[] = [];
    targets.forEach((t, i) => {
      const hit = cache.lookup(t.key);
      if (hit) {
        rows[i] = { ...hit, key: t.key, path: t.path };
        cached++;
        done++;
      } else todo.push(i);
    });
    tell();
    if (this.options.cachedOnly) return { rows: rows.filter((r): r is SessionHealth => r !== null), problems, cached, built, notes };
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < todo.length && !signal?.aborted) {
        const i = todo[next++] as number;
        const t = targets[i] as Target;
        try {
          rows[i] = await buildRow(t, cache);
          built++;
        } catch (e) {
          problems.push({
            path: t.session ? `${t.path} --session ${t.session}` : t.path,
            error: e instanceof Error ? e.message : String(e),
          });
        }
        done++;
        tell();
      }
    };
    const n = Math.max(1, this.options.concurrency ?? 2);
    await Promise.all(Array.from({ length: Math.min(n, todo.length) }, worker));
    cache.save();
    notes.push(...cache.problems);
    return { rows: rows.filter((r): r is SessionHealth => r !== null), problems, cached, built, notes };
  }
}

async function buildRow(t: Target, cache: HealthCache): Promise<SessionHealth> {
  const session = await loadSession(t.path, t.session !== undefined ? { session: t.session } : {});
  try {
    const inspector = new SessionInspector(session);
    await inspector.loadRuleTexts();
    const row = sessionHealth(inspector, {
      key: t.key,
      path: t.path,
      ...(t.harness !== undefined ? { harness: t.harness } : {}),
      ...(t.project !== undefined ? { project: t.project } : {}),
    });
    cache.store(t.key, [t.path, ...session.files.map((f) => f.path)], row);
    return row;
  } finally {
    await session.dispose();
  }
}
