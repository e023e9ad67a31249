import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notSearchedNote } from '../../../src/main/cli/not-searched';
import { SEARCH_DEPTH, sessionsUnder } from '../../../src/main/session/targets';

/* The sessions under a folder given to `inspect` or `validate`: a harness's home is searched as the harness lays it out. */

const ROLLOUT = 'rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl';
let root = '';

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'palimpsest-targets-'));
  // A backup of a home folder: the rollout is five folders below `root/backup`.
  const day = join(root, 'backup', '.codex', 'sessions', '2026', '02', '23');
  mkdirSync(day, { recursive: true });
  copyFileSync(join('fixtures/codex', ROLLOUT), join(day, ROLLOUT));
  // Not sessions: Claude Code's prompt history, a log of Codex's own, a repository's hidden folder.
  mkdirSync(join(root, 'backup', '.claude', 'projects', '-home-dev'), { recursive: true });
  copyFileSync('fixtures/claude-code/short.jsonl', join(root, 'backup', '.claude', 'projects', '-home-dev', 'short.jsonl'));
  writeFileSync(join(root, 'backup', '.claude', 'history.jsonl'), '{"display":"hi"}\n');
  mkdirSync(join(root, 'backup', '.codex', 'log'), { recursive: true });
  writeFileSync(join(root, 'backup', '.codex', 'log', 'tui.jsonl'), '{}\n');
  mkdirSync(join(root, 'backup', '.git'), { recursive: true });
  writeFileSync(join(root, 'backup', '.git', 'x.jsonl'), '{}\n');
  // A session deeper than any search goes.
  const deep = join(root, ...Array.from({ length: SEARCH_DEPTH + 2 }, (_, i) => `d${i}`));
  mkdirSync(deep, { recursive: true });
  copyFileSync('fixtures/palimpsest/basic.jsonl', join(deep, 'basic.jsonl'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('sessionsUnder', () => {
  it('finds rollouts five folders down in a copied ~/.codex, and Claude Code projects in ~/.claude, and nothing else hidden', async () => {
    const found = (await sessionsUnder(join(root, 'backup'))).map((p) => p.slice(root.length + 1));
    expect(found).toEqual(['backup/.claude/projects/-home-dev/short.jsonl', `backup/.codex/sessions/2026/02/23/${ROLLOUT}`]);
  });

  it('names the folders it left out for depth, and the CLI says so', async () => {
    const notSearched: string[] = [];
    const found = await sessionsUnder(root, SEARCH_DEPTH, notSearched);
    expect(found.some((p) => p.endsWith('basic.jsonl'))).toBe(false);
    expect(notSearched).toEqual([join(root, ...Array.from({ length: SEARCH_DEPTH + 1 }, (_, i) => `d${i}`))]);
    const lines: string[] = [];
    notSearchedNote(notSearched, { err: (t) => lines.push(t) });
    expect(lines).toEqual([
      `note: 1 folder was not searched, more than ${SEARCH_DEPTH} levels down; give one to read the sessions in it:`,
      `  ${notSearched[0] ?? ''}`,
    ]);
  });
});
