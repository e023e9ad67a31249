// The corpus of real sessions the corpus scripts read (corpus-findings.mjs, corpus-cache-breaks.mjs):
// the committed corpus (fixtures/corpus/), the real logs of fixtures/claude-code/ and fixtures/codex/,
// and the fetched sessions in .corpus/ when scripts/fetch-corpus.mjs has run. One list, so every
// figure in the docs is over the same sessions.

import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const OTHER_REAL = [
  'fixtures/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl',
  'fixtures/claude-code/short.jsonl',
  'fixtures/claude-code/tool_heavy.jsonl',
  'fixtures/codex/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl',
  'fixtures/codex/rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl',
  'fixtures/codex/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl',
];

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
