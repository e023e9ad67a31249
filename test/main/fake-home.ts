import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { DiscoverOptions } from '../../src/main/discovery/discover';

/*
 * A fake home of real sessions for the tests of discovery and the session index: the repository's
 * fixtures copied where each harness keeps its sessions, so that the walk, the scanners and the
 * importers read real files in a real layout without touching the machine's own folders.
 */

/**
 * One thing to put in a folder: a fixture file or folder copied under its own name, a fixture
 * copied under another name, or a file written with the given text (a stray file of another tool).
 */
export type Placed = string | { readonly from: string; readonly as: string } | { readonly name: string; readonly text: string };

/** Folders (under the base, or absolute) and what goes in each; a folder with nothing is made empty. */
export type Layout = Readonly<Record<string, readonly Placed[]>>;

/** Makes each folder of `layout` under `base` and puts its fixtures in it. */
export function placeFixtures(base: string, layout: Layout): void {
  for (const [folder, placed] of Object.entries(layout)) {
    const dir = resolve(base, folder);
    mkdirSync(dir, { recursive: true });
    for (const p of placed) {
      if (typeof p === 'string') cpSync(p, join(dir, basename(p)), { recursive: true });
      else if ('from' in p) cpSync(p.from, join(dir, p.as), { recursive: true });
      else writeFileSync(join(dir, p.name), p.text);
    }
  }
}

/** Where the harnesses found through harnessEnv keep their sessions, under the base. */
export const CLAUDE_PROJECT = join('claude', 'projects', '-home-ada-x');
export const CODEX_DAY = join('codex', 'sessions', '2026', '02', '23');
export const GEMINI_CHATS = join('gemini', '.gemini', 'tmp', 'a1b2c3', 'chats');
/** An empty home: no harness is found at its default place. */
export const HOME = 'home';

/**
 * Discovery options that look only under `base`: Claude Code, Codex and Gemini CLI at the folders
 * above, by the variables that move them, and an empty home for every other harness.
 */
export function harnessEnv(base: string): Required<Pick<DiscoverOptions, 'env' | 'home'>> {
  return {
    env: { CLAUDE_CONFIG_DIR: join(base, 'claude'), CODEX_HOME: join(base, 'codex'), GEMINI_CLI_HOME: join(base, 'gemini') },
    home: join(base, HOME),
  };
}
