import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { DiscoverOptions } from '../../src/main/discovery/discover';

/** Sessions placed where their harnesses keep them, in a home of their own. */
export const FAKE_HOME_SESSIONS = {
  claude: 'fixtures/claude-code/short.jsonl',
  codex: 'fixtures/codex/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl',
} as const;

export interface FakeHome {
  readonly path: string;
  /** Discovery options that look only there (no index written, no environment overrides). */
  readonly machine: DiscoverOptions;
  remove(): void;
}

/** A home with one Claude Code project session and one Codex rollout, for the library's "this machine" list. */
export function makeFakeHome(): FakeHome {
  const home = mkdtempSync(join(tmpdir(), 'palimpsest-e2e-home-'));
  const claude = join(home, '.claude', 'projects', '-home-dev-shop-api');
  mkdirSync(claude, { recursive: true });
  copyFileSync(FAKE_HOME_SESSIONS.claude, join(claude, basename(FAKE_HOME_SESSIONS.claude)));
  const codex = join(home, '.codex', 'sessions', '2026', '02', '23');
  mkdirSync(codex, { recursive: true });
  copyFileSync(FAKE_HOME_SESSIONS.codex, join(codex, basename(FAKE_HOME_SESSIONS.codex)));
  return {
    path: home,
    machine: { home, env: {}, useIndex: false },
    remove: () => rmSync(home, { recursive: true, force: true }),
  };
}
