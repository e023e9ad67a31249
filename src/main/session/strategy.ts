import type { FormatId } from '../importers/types';
import { isZstdPath } from '../reader';
import type { ReaderOptions } from '../reader/types';
import { defaultLogPlan } from './log-choice';
import {
  defaultLoadThreads,
  PARALLEL_LOAD_MIN_BYTES,
  planRanges,
  startRangeJobs,
  type ByteRange,
  type RangeJob,
  type RangeMode,
} from './parallel-load';

/*
 * The one place a load decides how it reads: which event log it builds and whether a file is read
 * in byte ranges on several threads. The loader asks `chooseStrategy` and follows the answer, so
 * the performance machinery (compact log, parallel ranges) stays out of its centre.
 */

/** Lines looked at before choosing an importer (the first range holds at least these). */
export const SNIFF_LINES = 16;

export interface LoadOptions extends Omit<ReaderOptions, 'onBytes'> {
  /** Use this importer instead of detecting the format. */
  readonly format?: FormatId;
  /** The session to read from a database or a folder that holds several (OpenCode's). */
  readonly session?: string;
  /** Called as the session's files are read, with the bytes read so far over all of them. */
  readonly onBytes?: (read: number) => void;
  /**
   * Keep the events a line gives by itself as the line's bytes, off the heap, and build them again
   * when read (CompactLog; docs/performance.md, "The compact log" and "Parallel load"). Unset: as
   * defaultLogPlan says (log-choice.ts) — the compact log, read in parallel, for a large plain file
   * whose importer keeps lines as bytes (Palimpsest) — else the array log. PALIMPSEST_COMPACT_LOG=1
   * (or 0) chooses for every load that does not, so that any command, or the whole test suite, runs
   * over one or the other.
   */
  readonly compactLog?: boolean;
  /**
   * Threads that read a large Palimpsest file into a compact log, each a byte range: this one and
   * workers (docs/performance.md, "Parallel load"). 1: this thread alone. Default:
   * PALIMPSEST_LOAD_THREADS when set, else the machine's parallelism, at most 4. Files under
   * PARALLEL_LOAD_MIN_BYTES, other formats, compressed files and the array log are read on this
   * thread whatever this says.
   */
  readonly threads?: number;
  /**
   * Keep the import open after the last line so that the session can read on (LoadedSession.readOn,
   * read-on.ts): for a session being followed. Ignored for formats that do not read on.
   */
  readonly resumable?: boolean;
  /**
   * Read only the first whole lines of the file, up to the first line end at or after this many
   * bytes: the first view of a large session, shown while the whole is read (prefix.ts). The
   * session is the file as if it ended there; its companion files are not read and it does not read
   * on. Ignored for a folder, a compressed file and a JSON document, which are read whole.
   */
  readonly prefixBytes?: number;
  /** Stops the read when aborted: the load rejects with the signal's reason, its files closed and its workers stopped. */
  readonly signal?: AbortSignal;
  /** For tests: the smallest file read in ranges, the first range's share, and whether later ranges are read by workers or inline. */
  readonly parallel?: { readonly minBytes?: number; readonly firstShare?: number; readonly mode?: RangeMode };
}

/** What the loader knows of the session's path before reading it. */
export interface FileFacts {
  readonly path: string;
  readonly isDirectory: boolean;
  /** Bytes, for a file. */
  readonly size: number;
}

/**
 * How a load reads: into the array log; into the compact log on this thread; or into the compact
 * log with the later byte ranges of the (first, only) file already being read by `jobs`.
 * `forced`: the options or the environment chose the log, so the importer does not change it.
 */
export type LoadStrategy =
  | { readonly kind: 'array' }
  | { readonly kind: 'compact'; readonly forced: boolean }
  | { readonly kind: 'ranges'; readonly forced: boolean; readonly ranges: readonly ByteRange[]; readonly jobs: readonly RangeJob[] };

/** Whether the options (or the environment) choose the log: true compact, false array, null by size and format. */
function chosenLog(options: LoadOptions): boolean | null {
  if (options.compactLog !== undefined) return options.compactLog;
  // A followed session keeps its import open, which only the array log allows (read-on.ts): the
  // variable that runs every command over the compact log leaves it to the format.
  if (options.resumable === true) return null;
  const env = process.env.PALIMPSEST_COMPACT_LOG;
  return env === '1' ? true : env === '0' ? false : null;
}

/** The threads a load may use: the option, else PALIMPSEST_LOAD_THREADS, else the default. */
function loadThreads(options: LoadOptions): number {
  if (options.threads !== undefined) return options.threads;
  const env = Number(process.env.PALIMPSEST_LOAD_THREADS);
  return Number.isInteger(env) && env >= 1 ? env : defaultLoadThreads();
}

/**
 * The strategy for a load of `facts`. A plain Palimpsest file large enough for the compact log is
 * read in byte ranges, the later ones by jobs started here (before its importer is chosen, from
 * the first range) so that they run beside the loading thread; `onRangeBytes` hears their progress.
 */
export async function chooseStrategy(
  facts: FileFacts,
  options: LoadOptions,
  onRangeBytes: (index: number, read: number) => void,
): Promise<LoadStrategy> {
  const threads = loadThreads(options);
  const forcedLog = chosenLog(options);
  const compact = forcedLog ?? (await defaultLogPlan(facts.path, facts.isDirectory, facts.size, threads)).compact;
  if (!compact) return { kind: 'array' };
  const forced = forcedLog !== null;
  // A `.json` may be one document over many lines (reader/document.ts): never split into ranges.
  const rangesPossible =
    !facts.isDirectory &&
    !isZstdPath(facts.path) &&
    !/\.json$/i.test(facts.path) &&
    (options.format === undefined || options.format === 'palimpsest');
  if (rangesPossible && threads >= 2 && facts.size >= (options.parallel?.minBytes ?? PARALLEL_LOAD_MIN_BYTES)) {
    const ranges = await planRanges(facts.path, facts.size, threads, SNIFF_LINES, options.parallel?.firstShare);
    const jobs = ranges && startRangeJobs(facts.path, ranges, options, options.parallel?.mode ?? 'worker', onRangeBytes);
    if (ranges && jobs) return { kind: 'ranges', forced, ranges, jobs };
  }
  return { kind: 'compact', forced };
}

/**
 * Whether the log stays compact once the importer is known: a log chosen by size is an array log
 * after all when the importer keeps no line as bytes (it gains nothing from the compact log).
 */
export function staysCompact(strategy: LoadStrategy, importerKeepsLines: boolean): boolean {
  if (strategy.kind === 'array') return false;
  return strategy.forced || importerKeepsLines;
}
