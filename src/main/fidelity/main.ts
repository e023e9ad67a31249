import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLIENTS, type ClientDef, type ClientId, clientAt, selectVersions } from './clients';
import { type ScenarioComparison, compareLog } from './compare';
import { compareRecorded } from './recorded';
import { resolve } from 'node:path';
import { type Installed, installClient } from './install';
import { NOTES } from './notes';
import { allVersionFacts } from './compat';
import { COMPAT_NOTES } from './compat-notes';
import { renderCompatDoc, renderVersionTable } from './compat-render';
import { type ReportInput, renderReport } from './report';
import { type RunResult, copyRun, defaultRunRoot, fixtureDir, runScenario } from './run';
import { type Scenario, readScenarios, scenariosFor } from './scenario';
import { type ParsedArgs, UsageError, parseArgs, stringFlag } from '../command/args';

/*
 * The fidelity suite's command line (scripts/fidelity.mjs runs the bundle of this file).
 *
 *   fidelity [--client claude-code|codex|gemini-cli|opencode] [--scenario NAME[,NAME…]] [--versions all|current|older|V,V…]
 *            [--no-run] [--copy] [--report PATH] [--fixtures DIR] [--run-root DIR] [--allow-mismatch]
 *
 * `--compat` runs nothing: it writes docs/compatibility.md and src/shared/compat/versions.ts from the
 * saved runs in <fixtures>/logs (./compat.ts) and exits 0.
 *
 * `--versions` picks the client versions (clients.ts): `all` (the default) is the whole version
 * matrix, `current` each client's current version only, `older` the matrix without it.
 *
 * Installs the pinned clients, runs every scenario against the mock provider, compares every
 * captured request with the view Palimpsest rebuilds from the client's log, and writes the
 * report. `--no-run` compares the logs already in the fixtures instead (no client needed).
 *
 * Exit codes: 0 every known request matched; 1 a mismatch (or a scenario's run went wrong);
 * 3 a client could not be installed or run here (nothing was proved for it); 2 bad usage.
 */

export const EXIT = { ok: 0, mismatch: 1, usage: 2, unavailable: 3 } as const;

interface Args {
  client: string | null;
  scenario: string | null;
  versions: string;
  run: boolean;
  copy: boolean;
  report: string | null;
  fixtures: string;
  runRoot: string;
  allowMismatch: boolean;
  compat: boolean;
}

// The flags and whether each takes a value; the strict parser the CLI uses turns anything else
// (an unknown flag, a missing value, a stray word) into a usage error instead of ignoring it.
const FLAGS = {
  client: 'value',
  scenario: 'value',
  versions: 'value',
  'no-run': 'boolean',
  copy: 'boolean',
  report: 'value',
  fixtures: 'value',
  'run-root': 'value',
  'allow-mismatch': 'boolean',
  compat: 'boolean',
} as const;

/** The fidelity flags, or the usage error to print. */
export function parseFidelityArgs(argv: readonly string[]): Args | string {
  let p: ParsedArgs;
  try {
    p = parseArgs(argv, FLAGS);
  } catch (e) {
    if (e instanceof UsageError) return e.message;
    throw e;
  }
  if (p.positional.length > 0) return `unknown argument ${p.positional[0]}`;
  const client = stringFlag(p, 'client') ?? null;
  if (client !== null && !(client in CLIENTS)) return `--client takes ${Object.keys(CLIENTS).join(', ')}, not ${client}`;
  return {
    client: client as ClientId | null,
    scenario: stringFlag(p, 'scenario') ?? null,
    versions: stringFlag(p, 'versions') ?? 'all',
    run: !p.flags.has('no-run'),
    copy: p.flags.has('copy'),
    report: stringFlag(p, 'report') ?? null,
    fixtures: stringFlag(p, 'fixtures') ?? 'fixtures/fidelity',
    runRoot: stringFlag(p, 'run-root') ?? defaultRunRoot(),
    allowMismatch: p.flags.has('allow-mismatch'),
    compat: p.flags.has('compat'),
  };
}

const log = (s: string): void => {
  process.stderr.write(`${s}\n`);
};

export async function main(argv: readonly string[]): Promise<number> {
  const args = parseFidelityArgs(argv);
  if (typeof args === 'string') {
    log(`fidelity: ${args}`);
    return EXIT.usage;
  }
  const all = readScenarios(join(args.fixtures, 'scenarios'));
  if (args.compat) {
    const w = writeCompat(args.fixtures, all, 'docs/compatibility.md', 'src/shared/compat/versions.ts');
    for (const m of w.missing) log(`compat: no saved run of ${m}`);
    log(`compat: ${w.versions} versions written to docs/compatibility.md and src/shared/compat/versions.ts`);
    return EXIT.ok;
  }
  // The work: every selected scenario on every selected version of its client.
  const work: { client: ClientDef; scenario: Scenario }[] = [];
  for (const id of Object.keys(CLIENTS) as ClientId[]) {
    if (args.client && args.client !== id) continue;
    const versions = selectVersions(id, args.versions);
    if (typeof versions === 'string') {
      log(`fidelity: ${versions}`);
      return EXIT.usage;
    }
    for (const version of versions) {
      const client = clientAt(id, version);
      if (!client) continue;
      for (const s of scenariosFor(all, id, version, version === CLIENTS[id].version))
        if (!args.scenario || args.scenario.split(',').includes(s.name)) work.push({ client, scenario: s });
    }
  }
  if (work.length === 0) {
    log('fidelity: no scenario selected');
    return EXIT.usage;
  }
  const comparisons: ScenarioComparison[] = [];
  const unavailable: { client: ClientId; version: string; reason: string }[] = [];
  const runs: RunResult[] = [];
  const installs = new Map<string, Installed>();

  for (const { client, scenario: s } of work) {
    if (!args.run) {
      const dir = fixtureDir(args.fixtures, client, s.name);
      if (!existsSync(join(dir, 'run.json'))) {
        unavailable.push({ client: client.id, version: client.version, reason: `no saved run of ${s.name} in ${dir}` });
        continue;
      }
      log(`comparing saved run ${dir}`);
      comparisons.push(await compareSaved(dir, s));
      continue;
    }
    const key = `${client.id}@${client.version}`;
    let inst = installs.get(key);
    if (!inst) {
      inst = installClient(client, { log });
      installs.set(key, inst);
      if (inst.ok) log(`${key}: ${inst.versionLine}${inst.reused ? ' (cached)' : ''} at ${inst.bin}`);
      else {
        log(`${key}: NOT AVAILABLE: ${inst.error}`);
        unavailable.push({ client: client.id, version: client.version, reason: inst.error });
      }
    }
    if (!inst.ok) continue;
    log(`running ${key} ${s.name}`);
    // Every run goes through `palimpsest record` (the built CLI), so each scenario is compared twice:
    // from the log alone, and joined with the capture.
    const r = await runScenario(s, inst, { root: args.runRoot, log, client, record: { cli: resolve('bin/palimpsest.js') } });
    runs.push(r);
    for (const p of r.problems) log(`  problem: ${p}`);
    if (args.copy) log(`  copied to ${copyRun(r, args.fixtures)}`);
    comparisons.push(await compareRun(r));
  }

  for (const c of comparisons) {
    log(
      `${c.client}@${c.version} ${c.scenario}: ${c.matched}/${c.known} known requests match (${c.unknown} unknown, ${c.notInLog} not in the log)${c.error ? ` — ${c.error}` : ''}`,
    );
    const rec = c.recorded;
    if (rec)
      log(
        `  recorded: ${rec.exact}/${rec.wire} wire requests exact in the joined session, ${rec.failedJoined}/${rec.failedOnWire} failed attempts joined${rec.error ? ` — ${rec.error}` : ''}`,
      );
  }
  const input: ReportInput = {
    comparisons,
    unavailable,
    generatedBy: args.run ? 'npm run test:fidelity' : 'npm run test:fidelity -- --no-run',
    mode: args.run ? 'run' : 'saved',
    notes: NOTES,
  };
  if (args.report) {
    writeFileSync(args.report, renderReport(input));
    log(`report written to ${args.report}`);
  }
  const recordedShort = (c: ScenarioComparison): boolean =>
    !!c.recorded && (c.recorded.error !== null || c.recorded.exact < c.recorded.wire || c.recorded.failedJoined < c.recorded.failedOnWire);
  const mismatch = comparisons.some((c) => c.mismatched > 0 || c.error !== null || c.runProblems.length > 0 || recordedShort(c));
  if (mismatch && !args.allowMismatch) return EXIT.mismatch;
  if (unavailable.length > 0) return EXIT.unavailable;
  return EXIT.ok;
}

async function compareRun(r: RunResult): Promise<ScenarioComparison> {
  const c = await compareLog({
    client: r.client.id,
    version: r.version,
    scenario: r.scenario.name,
    covers: r.scenario.covers,
    captured: r.captured,
    mainLog: r.mainLog,
    runProblems: r.problems,
  });
  return { ...c, recorded: await compareRecorded(r.mainLog, r.captured, r.captures, r.client.protocol) };
}

async function compareSaved(dir: string, s: Scenario): Promise<ScenarioComparison> {
  const { readFileSync } = await import('node:fs');
  const { readCaptured } = await import('../mock/record');
  const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as {
    mainLog: string | null;
    version: string;
    problems?: string[];
    captures?: string[];
  };
  const { requests } = readCaptured(join(dir, 'captured.jsonl'));
  const mainLog = run.mainLog ? join(dir, run.mainLog) : null;
  const c = await compareLog({
    client: s.client,
    version: run.version,
    scenario: s.name,
    covers: s.covers,
    captured: requests,
    mainLog,
    runProblems: run.problems ?? [],
  });
  const captures = (run.captures ?? []).map((f) => join(dir, f));
  return { ...c, recorded: captures.length > 0 ? await compareRecorded(mainLog, requests, captures, CLIENTS[s.client].protocol) : null };
}

/** Writes the compatibility doc and the version table from the saved runs. */
export function writeCompat(
  fixtures: string,
  scenarios: readonly Scenario[],
  docPath: string,
  tablePath: string,
): { versions: number; missing: string[] } {
  const matrix = {
    'claude-code': CLIENTS['claude-code'].versions,
    codex: CLIENTS.codex.versions,
    'gemini-cli': CLIENTS['gemini-cli'].versions,
    opencode: CLIENTS.opencode.versions,
  };
  const { facts, missing } = allVersionFacts(fixtures, scenarios, matrix);
  writeFileSync(docPath, renderCompatDoc(facts, COMPAT_NOTES));
  writeFileSync(tablePath, renderVersionTable(facts));
  return { versions: facts.length, missing };
}
