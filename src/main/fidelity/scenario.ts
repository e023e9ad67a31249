import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { Script } from '../mock/script';

/*
 * A fidelity scenario (fixtures/fidelity/scenarios/*.json): one client, the mock's script, and the
 * turns to run. Turns after the first continue the session (`--resume` / `exec resume`) unless
 * they say `resume: false`; other drives (`drive`) play them through a server or a terminal.
 */

export const Turn = z.object({
  prompt: z.string().min(1),
  resume: z.boolean().optional(),
  /** Extra arguments for this turn. */
  args: z.array(z.string()).default([]),
  /** What the turn is expected to do; `fail` turns may exit non-zero without failing the run. */
  expect: z.enum(['ok', 'fail', 'any']).default('ok'),
});
export type Turn = z.infer<typeof Turn>;

export const Scenario = z.object({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/),
  client: z.enum(['claude-code', 'codex', 'gemini-cli', 'opencode']),
  description: z.string(),
  /**
   * How the turns are driven. `cli` (the default): each turn is a headless process of its own.
   * `server`: the client's own HTTP server (OpenCode's `serve`) runs for the whole scenario and each
   * turn is a call to its API (./serve.ts), for what a headless process cannot do: a manual
   * compaction (the turn `/compact`), or work the client finishes after a turn has answered.
   * `terminal`: the turns are typed, one after the other, into one interactive session of the
   * client in a terminal (./terminal.ts), for what only an interactive session logs; a turn's
   * `args` and `resume` do not apply, and a prompt may be a slash command.
   */
  drive: z.enum(['cli', 'server', 'terminal']).default('cli'),
  /** Arguments on every turn (Codex `-c` settings, a model). */
  settings: z.array(z.string()).default([]),
  /** Extra environment for every turn (retry limits, compaction windows). */
  env: z.record(z.string(), z.string()).default({}),
  /**
   * Files written into the client's home before the first turn (path relative to the home → JSON
   * value), over the client's own (Gemini CLI's `.gemini/settings.json`: a compression threshold).
   */
  homeFiles: z.record(z.string(), z.unknown()).default({}),
  script: Script,
  turns: z.array(Turn).min(1),
  /** Per-turn time limit (default 180 s). */
  turnTimeoutMs: z.number().int().positive().max(600_000).default(180_000),
  /** What the scenario is about, for the report: which compaction path and which failure. */
  covers: z.array(z.string()).default([]),
  /**
   * The client versions this file is for. Absent: every version that no other file of the same
   * name claims. A variant exists only where a version truly needs other replies (an older tool).
   */
  versions: z.array(z.string()).optional(),
  /**
   * Run on the client's current version only, not on the older versions of the matrix: the further
   * compaction faults, which the matrix leaves out to bound its time and the fixtures' size.
   */
  currentOnly: z.boolean().default(false),
});
export type Scenario = z.infer<typeof Scenario>;

export function readScenario(path: string): Scenario {
  return Scenario.parse(JSON.parse(readFileSync(path, 'utf8')));
}

/** Every scenario in a folder, sorted by file name. */
export function readScenarios(dir: string): Scenario[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => readScenario(join(dir, f)));
}

/**
 * The scenarios to run on one client version: for each name, the file that lists this version, or
 * else the file that lists none; on an older version (`current` false), not the `currentOnly` ones.
 */
export function scenariosFor(all: readonly Scenario[], client: Scenario['client'], version: string, current = true): Scenario[] {
  const mine = all.filter((s) => s.client === client && (current || !s.currentOnly));
  const names = [...new Set(mine.map((s) => s.name))];
  const out: Scenario[] = [];
  for (const name of names) {
    const same = mine.filter((s) => s.name === name);
    const pick = same.find((s) => s.versions?.includes(version)) ?? same.find((s) => s.versions === undefined);
    if (pick) out.push(pick);
  }
  return out;
}
