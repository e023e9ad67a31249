// The corpus of real sessions the corpus scripts read (corpus-findings.mjs, corpus-cache-breaks.mjs):
// the committed corpus (fixtures/corpus/), the real logs of fixtures/claude-code/ and fixtures/codex/,
// and the fetched sessions in .corpus/ when scripts/fetch-corpus.mjs has run. One list, so every
// figure in the docs is over the same sessions.

import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Real client logs kept in other fixture folders: one list for the scripts and the tests. */
const OTHER_REAL = JSON.parse(readFileSync('fixtures/corpus/other-real.json', 'utf8')).files;

/** Every .jsonl under `dir`, sorted; a session's subagents/ folder is read with its session. */
export function walk(dir) {
  if (!existsSync(dir)) return [];
  if (!statSync(dir).isDirectory()) return [dir];
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) return name === 'subagents' ? [] : walk(p);
      return name.endsWith('.jsonl') ? [p] : [];
    });
}

/** Every session of the corpus, main files only (a session's subagents are read with it). */
export function corpusFiles() {
  return [...walk('fixtures/corpus'), ...OTHER_REAL, ...walk('.corpus')];
}
