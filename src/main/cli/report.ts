import { writeFile } from 'node:fs/promises';
import { stat } from 'node:fs/promises';
import { stringFlag, UsageError, type ParsedArgs } from '../command/args';
import { EXIT_CLEAN } from '../command/exit';
import type { Io } from '../command/io';
import { parseRootFlag } from '../discovery/locations';
import { catalogDir } from '../catalog/update';
import { scanInParallel } from '../discovery/parallel';
import type { Harness } from '../discovery/types';
import { CatalogHealthSource } from '../catalog/health-source';
import { SessionFilesHealthSource } from '../health/session-files';
import type { HealthProgress, HealthSource } from '../health/source';
import { renderHealthHtml } from '../present/health-html';
import { renderHealth } from '../present/health-text';
import { HEALTH_GROUPS, HealthGroup } from '../../shared/health/aggregate';
import { healthReport } from '../../shared/health/report';
import { JSON_VERSION } from '../present/json';

/**
 * Where the rows come from. The harnesses' folders (no DIR): the session index, brought up to date
 * first (what `search` uses; a session read once is not read again until it changes). DIR, a folder
 * whose layout names no harness, or `--no-cache`, or an index folder Palimpsest may not write:
 * every session loaded (rows kept in the health cache unless `--no-cache`).
 */
function healthSource(dir: string | undefined, roots: readonly { harness: Harness; path: string }[], cache: boolean, io: Io): HealthSource {
  if (dir !== undefined) return new SessionFilesHealthSource({ dir, useCache: cache });
  if (!cache) return new SessionFilesHealthSource({ roots, useCache: false });
  const discover = { roots, scanMany: scanInParallel };
  const where = catalogDir(discover);
  if (where.dir === null) {
    io.err(`palimpsest report: ${where.problem ?? 'no folder for the session index'}; every session is loaded instead`);
    return new SessionFilesHealthSource({ roots, useCache: false });
  }
  return new CatalogHealthSource({ discover, dir: where.dir });
}

/**
 * `palimpsest report [DIR] [--root H=PATH]… [--since D] [--by day|project|harness|model] [--json]
 * [--html OUT] [--no-cache]`: compaction health across sessions (docs/health.md). Without DIR, the
 * sessions `ls` finds; with it, the sessions under it, as `inspect DIR` finds them. A session that
 * cannot be read is listed with its error and the report goes on; progress goes to stderr.
 */
export const REPORT_SPEC: Record<string, 'value' | 'boolean'> = {
  root: 'value',
  since: 'value',
  by: 'value',
  json: 'boolean',
  html: 'value',
  'no-cache': 'boolean',
};

/** Progress on stderr at most this often. */
const PROGRESS_MS = 1000;

export async function reportCommand(args: ParsedArgs, io: Io): Promise<number> {
  if (args.positional.length > 1) throw new UsageError('report takes at most one DIR');
  const dir = args.positional[0];
  const roots = (args.lists.get('root') ?? []).map((r) => {
    try {
      return parseRootFlag(r);
    } catch (e) {
      throw new UsageError(e instanceof Error ? e.message : String(e));
    }
  });
  if (dir !== undefined && roots.length > 0) throw new UsageError('--root chooses where to look without DIR; give one or the other');
  const byFlag = stringFlag(args, 'by') ?? 'day';
  const by = HealthGroup.safeParse(byFlag);
  if (!by.success) throw new UsageError(`--by must be one of ${HEALTH_GROUPS.join(', ')}; got "${byFlag}"`);
  const since = stringFlag(args, 'since');
  if (since !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(since)) throw new UsageError(`--since takes a day as YYYY-MM-DD; got "${since}"`);
  const html = stringFlag(args, 'html');
  if (html !== undefined && args.flags.has('json')) throw new UsageError('--json and --html: give one');
  if (dir !== undefined) {
    await stat(dir).catch(() => {
      throw new UsageError(`no such file or folder: ${dir}`);
    });
  }

  let last = 0;
  const progress = (p: HealthProgress): void => {
    const now = Date.now();
    if (p.done < p.total && now - last < PROGRESS_MS) return;
    last = now;
    if (p.total > 0) io.err(`palimpsest report: ${p.done}/${p.total} sessions read${p.cached > 0 ? ` (${p.cached} from the cache)` : ''}`);
  };
  const rows = await healthSource(dir, roots, !args.flags.has('no-cache'), io).rows(progress);
  for (const n of rows.notes) io.err(`palimpsest report: ${n}`);
  const report = healthReport(rows, by.data, since !== undefined ? { since } : {});
  if (html !== undefined) {
    await writeFile(html, renderHealthHtml(report));
    io.err(`palimpsest report: wrote ${html}`);
  } else if (args.flags.has('json')) io.out(JSON.stringify({ palimpsest: JSON_VERSION, ...report }, null, 2));
  else io.out(renderHealth(report));
  return EXIT_CLEAN;
}
