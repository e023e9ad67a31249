import { existsSync, readdirSync, statSync } from 'node:fs';
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

/** Real client logs kept in other fixture folders (sources in their folders' notes). */
export const OTHER_REAL = [
  'fixtures/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl',
  'fixtures/claude-code/short.jsonl',
  'fixtures/claude-code/tool_heavy.jsonl',
  'fixtures/codex/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl',
  'fixtures/codex/rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl',
  'fixtures/codex/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl',
];

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
