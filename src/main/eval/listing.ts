import { readdir, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { EvalResultsFile, EvalSpecFile } from '../../shared/api/eval-contract';
import { parseSpec } from '../../shared/eval/spec';
import { readStructured } from './files';

/*
 * The eval files a host offers in the app: spec files it was started with (any .yaml or .yml, or
 * *.spec.json: no session format uses those names), spec files named `*.spec.yaml|yml|json` under
 * the folders it was given (up to 4 levels down, hidden folders and node_modules skipped, a
 * bounded walk), and results files (`*.results.jsonl`) it was started with, found under those
 * folders, or in its results folder. Every spec is parsed so the list shows its name, or why it
 * cannot be used.
 */

const SPEC_NAME = /\.spec\.(ya?ml|json)$/i;
const RESULTS_NAME = /\.results\.jsonl$/i;
const MAX_DEPTH = 4;
const MAX_ENTRIES = 5000;
/** Larger files are not specs anyone wrote by hand; they are listed with a reason, not parsed. */
const MAX_SPEC_BYTES = 1 << 20;

export const isSpecCandidate = (path: string): boolean => ['.yaml', '.yml'].includes(extname(path).toLowerCase()) || SPEC_NAME.test(path);

/** A path given to the host that is an eval spec or results file rather than a session: the UI does not open it as one. */
export const isEvalFile = (path: string): boolean => isSpecCandidate(path) || RESULTS_NAME.test(path);

export async function describeSpec(path: string, given = false): Promise<EvalSpecFile> {
  const info = await stat(path).catch(() => null);
  if (!info?.isFile()) return { path, name: null, description: null, error: `${path}: no such file`, given };
  if (info.size > MAX_SPEC_BYTES)
    return { path, name: null, description: null, error: `${path}: larger than 1 MB, not read as a spec`, given };
  const raw = await readStructured(path);
  const spec = raw.ok ? parseSpec(raw.value, path) : raw;
  if (!spec.ok) return { path, name: null, description: null, error: spec.error.split('\n')[0] ?? spec.error, given };
  return { path, name: spec.value.name, description: spec.value.description ?? null, error: null, given };
}

interface Found {
  readonly specs: string[];
  readonly results: string[];
  readonly problems: string[];
}

async function walk(folder: string): Promise<Found> {
  const found: Found = { specs: [], results: [], problems: [] };
  let seen = 0;
  const visit = async (dir: string, depth: number): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (err: unknown) {
      found.problems.push(`${dir}: cannot list (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
      return;
    }
    for (const e of entries) {
      if (++seen > MAX_ENTRIES) return;
      if (e.name.startsWith('.') || e.name === 'node_modules') continue;
      const path = join(dir, e.name);
      if (e.isDirectory() && depth < MAX_DEPTH) await visit(path, depth + 1);
      else if (e.isFile() && SPEC_NAME.test(e.name)) found.specs.push(path);
      else if (e.isFile() && RESULTS_NAME.test(e.name)) found.results.push(path);
    }
  };
  await visit(folder, 1);
  if (seen > MAX_ENTRIES) found.problems.push(`${folder}: more than ${MAX_ENTRIES} entries; the rest were not looked at for eval files`);
  return found;
}

async function resultsFile(path: string): Promise<EvalResultsFile | null> {
  const info = await stat(path).catch(() => null);
  return info?.isFile() ? { path, bytes: info.size, modifiedAt: info.mtime.toISOString() } : null;
}

export interface EvalListing {
  readonly specs: EvalSpecFile[];
  readonly results: EvalResultsFile[];
  readonly problems: string[];
}

/** `files`: the host's own files; `folders`: the folders it was given or picked; `resultsFolder`: its data folder's evals. */
export async function listEvalFiles(files: readonly string[], folders: readonly string[], resultsFolder: string): Promise<EvalListing> {
  const specPaths = files.filter(isSpecCandidate);
  const resultPaths = files.filter((f) => RESULTS_NAME.test(f));
  const problems: string[] = [];
  for (const f of folders) {
    const found = await walk(f);
    specPaths.push(...found.specs);
    resultPaths.push(...found.results);
    problems.push(...found.problems);
  }
  const inFolder = await readdir(resultsFolder).catch(() => [] as string[]);
  resultPaths.push(...inFolder.filter((n) => n.endsWith('.jsonl')).map((n) => join(resultsFolder, n)));
  const given = new Set(files);
  const specs = await Promise.all([...new Set(specPaths)].map((p) => describeSpec(p, given.has(p))));
  const results = (await Promise.all([...new Set(resultPaths)].map(resultsFile))).filter((r): r is EvalResultsFile => r !== null);
  // Newest results first: the run just made is the one to look at.
  results.sort((a, b) => b.modifiedAt.localeCompare(a.modifiedAt));
  return { specs, results, problems };
}
