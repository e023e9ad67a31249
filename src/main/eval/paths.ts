import { stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import type { PathPolicy } from '../access/path-policy';
import { canonicalPath as canonical } from '../files/canonical';
import { dataDir } from '../files/data-dir';
import { readResults } from './results-file';

/*
 * Which eval files a host may read and write (the app's eval view; docs/eval.md, "In the app").
 * The host's path policy (src/main/library/library.ts) decides, as for sessions: files it was
 * started with, files under folders it was started with or the user picked, and in Electron a path
 * the user confirmed in a native dialog. On top of that, the host's own eval results folder
 * (<data dir>/evals, where runs write by default) is readable, since only Palimpsest writes there.
 *
 * A spec names its traces, facts and mock scripts; the runner reads those because an allowed spec
 * names them — the user vouched for the spec by starting the host with it. A results file names
 * the traces it was run on; evalRunDetail reads them for the same reason.
 *
 * Writing is narrower: results are only ever appended to a `.jsonl` file that is in the results
 * folder, or allowed by the policy and either new or already an eval results file. Never to a
 * session (the source is read-only) nor to any other file a folder holds.
 */

export type PathCheck = { readonly ok: true; readonly path: string } | { readonly ok: false; readonly message: string };

export class EvalPaths {
  private readonly allowedFiles: Promise<Set<string>> | null;

  /** `policy`: the host's library; without one (tests, bare hosts), only `files`. */
  constructor(
    private readonly policy: PathPolicy | null,
    files: readonly string[],
    private readonly env: Readonly<Record<string, string | undefined>>,
  ) {
    this.allowedFiles = policy ? null : Promise.all(files.map(canonical)).then((ps) => new Set(ps));
  }

  /** Where runs started from the app write by default (prepare.ts defaultResultsFile). */
  get resultsFolder(): string {
    return resolve(join(dataDir(this.env), 'evals'));
  }

  private async inResultsFolder(path: string): Promise<boolean> {
    const root = await canonical(this.resultsFolder);
    return (await canonical(path)).startsWith(root + sep);
  }

  private async policyAllows(path: string): Promise<boolean> {
    if (this.policy) return this.policy.allows(path);
    return (await this.allowedFiles)?.has(await canonical(path)) ?? false;
  }

  private refusal(path: string, what: string): string {
    const why = this.policy ? this.policy.refusal(path) : `${path} is not one of the files this host was started with.`;
    return `Not allowed to read this ${what}: ${why} Eval files follow the same rule; results in ${this.resultsFolder} are always readable.`;
  }

  /** A spec, results or baseline file to read. */
  async read(path: string, what: 'spec' | 'results file' | 'baseline'): Promise<PathCheck> {
    const abs = resolve(path);
    if (what !== 'spec' && (await this.inResultsFolder(abs))) return { ok: true, path: abs };
    if (await this.policyAllows(abs)) return { ok: true, path: abs };
    return { ok: false, message: this.refusal(path, what) };
  }

  /** A results file a run may append to. */
  async write(path: string): Promise<PathCheck> {
    const abs = resolve(path);
    if (extname(abs) !== '.jsonl') return { ok: false, message: `A results file is JSONL: ${path} must end with .jsonl.` };
    const inFolder = await this.inResultsFolder(abs);
    if (!inFolder && !(await this.policyAllows(abs))) {
      return {
        ok: false,
        message: `Not allowed to write results to ${path}: choose a file in ${this.resultsFolder}, or under a folder this host was started with.`,
      };
    }
    const info = await stat(abs).catch((err: unknown) => ((err as NodeJS.ErrnoException).code === 'ELOOP' ? 'loop' : null));
    if (info === 'loop') return { ok: false, message: `${path} is a symbolic link loop.` };
    if (info === null) return { ok: true, path: abs };
    if (!info.isFile()) return { ok: false, message: `${path} is not a file.` };
    if (info.size === 0) return { ok: true, path: abs };
    // Appending to anything but an eval results file could change a session or some other file.
    const existing = await readResults(abs);
    if (existing.lines.length === 0 || existing.problems.length > 0) {
      return {
        ok: false,
        message: `${path} exists and is not an eval results file: results are only appended to eval results files. Choose a new file.`,
      };
    }
    return { ok: true, path: abs };
  }
}
