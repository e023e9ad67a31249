#!/usr/bin/env node
// The Electron security gate of `npm test`: Electronegativity (@doyensec/electronegativity) on
// src/ — not on the bundle, which hides the checks — and a failure for every HIGH or MEDIUM
// finding that electronegativity-allowlist.json does not accept with a reason.
//
// Why the runner and not the CLI's report files: the tool exits 0 whatever it finds, and of its
// two outputs, SARIF carries no severity (its `level` only says whether a finding needs manual
// review) while the CSV is written racily (its header and its rows are two concurrent writes to
// one file: the first row comes out overwritten or lost). The CLI is a thin wrapper over
// dist/runner.js; called directly it returns each finding with its severity and confidence. The
// SARIF report is still written, to test-results/electronegativity.sarif, for people and CI.
//
// AvailableSecurityFixesGlobalCheck is skipped: it asks the network for Electron releases. (The
// runner also asks the network for updated translations, with a 1 s timeout; offline it uses the
// English bundled with it.)
//
// Usage: node scripts/electronegativity.mjs [--allowlist FILE]
// Exit: 0 clean, 1 findings not allowed or a bad allowlist, 2 the tool could not run.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const GATED = new Set(['HIGH', 'MEDIUM']);
const INPUT = join(root, 'src');
const SARIF = join(root, 'test-results', 'electronegativity.sarif');

const args = process.argv.slice(2);
const flag = args.indexOf('--allowlist');
const allowlistPath = resolve(root, flag >= 0 && args[flag + 1] ? args[flag + 1] : 'electronegativity-allowlist.json');

/** Electron's version from its package.json: never require('electron') (it downloads the binary). */
function electronVersion() {
  try {
    return JSON.parse(readFileSync(join(root, 'node_modules', 'electron', 'package.json'), 'utf8')).version;
  } catch (err) {
    throw new Error(`cannot read node_modules/electron/package.json (${err.message}): run npm install`, { cause: err });
  }
}

/** The allowlist: [{ check, file, reason }]; a missing or empty reason is an error of its own. */
export function readAllowlist(path) {
  const problems = [];
  let entries;
  try {
    entries = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    return { entries: [], problems: [`${relative(root, path)}: cannot be read as JSON (${err.message})`] };
  }
  if (!Array.isArray(entries))
    return { entries: [], problems: [`${relative(root, path)}: must be a JSON array of { check, file, reason }`] };
  const ok = [];
  entries.forEach((e, i) => {
    const where = `${relative(root, path)} entry ${i}`;
    if (typeof e !== 'object' || e === null) return problems.push(`${where}: not an object`);
    if (typeof e.check !== 'string' || e.check === '')
      return problems.push(`${where}: no "check" (the finding's id, e.g. PRELOAD_JS_CHECK)`);
    if (typeof e.file !== 'string' || e.file === '')
      return problems.push(`${where} (${e.check}): no "file" (relative to the repository, e.g. src/main/electron/shell.ts)`);
    if (typeof e.reason !== 'string' || e.reason.trim().length < 20) {
      return problems.push(`${where} (${e.check} in ${e.file}): no "reason" — say why this finding is acceptable, in a sentence`);
    }
    ok.push(e);
  });
  return { entries: ok, problems };
}

/** Findings as `{ check, severity, confidence, file, line, description }`, file relative to the repository. */
export function normalise(issues, input = INPUT) {
  return issues.map((i) => ({
    check: i.id,
    severity: i.severity?.name ?? String(i.severity),
    confidence: i.confidence?.name ?? String(i.confidence),
    file: i.file === 'N/A' ? 'N/A' : relative(root, resolve(input, i.file)),
    line: i.location?.line ?? 0,
    description: i.description,
  }));
}

/** Splits gated findings into allowed and not, and finds the allowlist entries nothing matched. */
export function judge(findings, entries) {
  const gated = findings.filter((f) => GATED.has(f.severity));
  const used = new Set();
  const refused = [];
  for (const f of gated) {
    const at = entries.findIndex((e) => e.check === f.check && e.file === f.file);
    if (at < 0) refused.push(f);
    else used.add(at);
  }
  const stale = entries.filter((_, i) => !used.has(i));
  return { gated, refused, stale };
}

/** Runs the checks on `input`; writes the SARIF report to `sarif` when given. */
export async function scan(input, sarif) {
  const run = require('@doyensec/electronegativity/dist/runner.js');
  if (sarif) mkdirSync(dirname(sarif), { recursive: true });
  return run(
    {
      input,
      output: sarif,
      isSarif: true,
      isRelative: true,
      isVerbose: false,
      customScan: [],
      excludeFromScan: ['availablesecurityfixesglobalcheck'],
      electronVersionOverride: electronVersion(),
      parserPlugins: [],
    },
    false,
  );
}

async function main() {
  const result = await scan(INPUT, SARIF);
  const failedToParse = result.errors.filter((e) => !e.tolerable);
  const findings = normalise(result.issues);
  const { entries, problems } = readAllowlist(allowlistPath);
  const { gated, refused, stale } = judge(findings, entries);

  const line = (f) => `  ${f.severity} ${f.check}  ${f.file}${f.line ? `:${f.line}` : ''}  ${f.description}`;
  console.log(
    `electronegativity: ${result.atomicChecks + result.globalChecks} checks on src/, ${findings.length} findings, ${gated.length} HIGH or MEDIUM (report: ${relative(root, SARIF)})`,
  );
  for (const e of failedToParse) console.log(`  could not parse ${relative(root, e.file)}: ${e.message} (its checks did not run)`);
  for (const f of gated.filter((g) => !refused.includes(g))) {
    console.log(`${line(f)}\n    allowed: ${entries.find((e) => e.check === f.check && e.file === f.file)?.reason}`);
  }
  for (const e of stale) console.log(`  stale allowlist entry (nothing matches it any more; remove it): ${e.check} in ${e.file}`);
  for (const p of problems) console.error(`  allowlist: ${p}`);
  if (refused.length > 0) {
    console.error(
      `electronegativity: ${refused.length} HIGH or MEDIUM finding${refused.length === 1 ? '' : 's'} not allowed — fix the shell, or add { check, file, reason } to ${relative(root, allowlistPath)}:`,
    );
    for (const f of refused) console.error(line(f));
  }
  const failed = refused.length > 0 || problems.length > 0 || failedToParse.length > 0;
  if (!failed) console.log('electronegativity: ok');
  return failed ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      console.error(`electronegativity: the tool could not run: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      process.exitCode = 2;
    },
  );
}
