import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/*
 * The corpus of real public sessions the corpus tests run on: the committed files
 * (fixtures/corpus/<client>/<repo-slug>/…), the real logs already kept elsewhere in fixtures/, and,
 * when `node scripts/fetch-corpus.mjs` has fetched them, the sessions listed in
 * fixtures/corpus/remote.json (in the git-ignored .corpus/, same layout).
 */

export const COMMITTED = 'fixtures/corpus';
export const FETCHED = '.corpus';
export const CLIENTS = ['claude-code', 'codex'] as const;

/** Real client logs kept in other fixture folders (sources in their folders' notes); the corpus scripts read the same list. */
export const OTHER_REAL: readonly string[] = (JSON.parse(readFileSync('fixtures/corpus/other-real.json', 'utf8')) as { files: string[] })
  .files;

/** Every .jsonl under `dir`, sorted; a session's `subagents/` folder is left to its session. */
function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (name !== 'subagents') out.push(...walk(p));
    } else if (name.endsWith('.jsonl')) out.push(p);
  }
  return out;
}

/** Every log file of the committed corpus (subagent files inside a session's folder excluded). */
export function committedFiles(): string[] {
  return walk(COMMITTED);
}

/** The fetched remote sessions present on this machine (none until fetch-corpus has run). */
export function fetchedFiles(): string[] {
  return walk(FETCHED);
}

/** Every corpus log present here: committed, other real fixtures, fetched. */
export function corpusFiles(): string[] {
  return [...committedFiles(), ...OTHER_REAL, ...fetchedFiles()];
}

/** Claude Code 2.0.x wrote a subagent as a top-level `agent-*.jsonl` beside its session. */
export function isTopLevelAgent(path: string): boolean {
  return /(^|\/)agent-[^/]*\.jsonl$/.test(path) && !path.includes('/subagents/');
}
