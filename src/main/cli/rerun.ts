import { compare, type CompareSubject, type Comparison } from '../../shared/compare/compare';
import { modelLabel } from '../../shared/rerun/pinned';
import { sameCaptures, sameTargetSpace, type RunRecord, type RunTarget, type SourceIdentity } from '../../shared/rerun/record';
import { STRATEGIES } from '../../shared/strategies';
import { strategySource } from '../../shared/strategies/types';
import { runJob } from '../rerun/job';
import { originalSubject, runSubject } from '../rerun/original';
import { readRuns, defaultRunsFile, sourceIdentity } from '../rerun/sidecar';
import { resolveSource } from '../rerun/source';
import { whyUnreadable } from '../files/open-regular';
import { SessionInspector } from '../session/inspector';
import { loadSession } from '../session/load';
import { intFlag, stringFlag, UsageError, type ParsedArgs } from '../command/args';
import { CAPTURE_SPEC, captureFlags, joinCaptureFlags } from './capture-flag';
import { approvedEndpoints } from './endpoints';
import { EXIT_CLEAN, EXIT_FINDINGS } from '../command/exit';
import { CommandFailure } from '../command/fail';
import { formatFlag } from './formats';
import { renderComparison, renderRun, renderRunList } from './rerun-text';
import { chainOf, MODEL_SPEC } from './rerun-models';

/*
 * `palimpsest rerun | runs | compare`: re-run a compaction (or any request) with a strategy and
 * pinned models, list a session's runs, compare the original compaction with its re-runs. Results
 * go to the session's results file (never the session). Exit: 0 when every run committed, 1 when a
 * run failed, 2 for bad usage or unreadable input.
 *
 * `--capture FILE`: the session is joined with its captures first (as `inspect` and `view` do), so
 * a re-run starts from the request as sent and `--request N` indexes the joined list. Runs record
 * the captures they were made with: `runs --capture` lists those alone, and `compare` of a request
 * takes the runs made with the same captures (without any, the log's): a request index means one
 * list or the other, never both.
 */

interface Io {
  out(text: string): void;
  err(text: string): void;
}

export const RERUN_SPEC: Record<string, 'value' | 'boolean'> = {
  compaction: 'value',
  request: 'value',
  strategy: 'value',
  ...MODEL_SPEC,
  window: 'value',
  'max-output': 'value',
  option: 'value',
  repeat: 'value',
  runs: 'value',
  json: 'boolean',
  format: 'value',
  branch: 'value',
  'list-strategies': 'boolean',
  'allow-endpoint': 'value',
  ...CAPTURE_SPEC,
};
export const RUNS_SPEC: Record<string, 'value' | 'boolean'> = { runs: 'value', json: 'boolean', ...CAPTURE_SPEC };
export const COMPARE_SPEC: Record<string, 'value' | 'boolean'> = {
  compaction: 'value',
  request: 'value',
  run: 'value',
  batch: 'value',
  runs: 'value',
  json: 'boolean',
  format: 'value',
  branch: 'value',
  ...CAPTURE_SPEC,
};

function target(args: ParsedArgs): RunTarget {
  const c = stringFlag(args, 'compaction');
  const r = intFlag(args, 'request');
  if ((c === undefined) === (r === undefined))
    throw new UsageError('give exactly one of --compaction ID or --request N (`palimpsest inspect` lists both)');
  return c !== undefined ? { compaction: c } : { request: r as number };
}

function jsonOrString(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw; // a bare word is a string option
  }
}

/** `--option key=value`: the value is JSON when it parses (numbers, booleans), else a string. */
function options(args: ParsedArgs): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const o of args.lists.get('option') ?? []) {
    const eq = o.indexOf('=');
    if (eq <= 0) throw new UsageError(`--option takes key=value, got "${o}"`);
    const raw = o.slice(eq + 1);
    out[o.slice(0, eq)] = jsonOrString(raw);
  }
  return out;
}

async function openInspector(path: string, args: ParsedArgs): Promise<SessionInspector> {
  const session = await loadSession(path, { format: formatFlag(args) });
  const inspector = new SessionInspector(session);
  const branch = stringFlag(args, 'branch');
  if (branch !== undefined && !inspector.hasBranch(branch)) {
    await session.dispose();
    throw new UsageError(`no branch "${branch}" in ${path}; branches: ${inspector.branches.map((b) => b.name).join(', ')}`);
  }
  try {
    await joinCaptureFlags(inspector, args, branch);
  } catch (err: unknown) {
    await session.dispose();
    throw err;
  }
  await inspector.loadRuleTexts(branch);
  return inspector;
}

/** The identities of the `--capture` files, as runs record them; one that cannot be read is named. */
async function captureIdentities(args: ParsedArgs): Promise<SourceIdentity[]> {
  return Promise.all(
    captureFlags(args).map((c) =>
      sourceIdentity(c).catch((err: unknown) => {
        throw new CommandFailure('UNREADABLE', whyUnreadable(c, err));
      }),
    ),
  );
}

export async function rerunCommand(args: ParsedArgs, io: Io): Promise<number> {
  if (args.flags.has('list-strategies')) {
    for (const s of STRATEGIES)
      io.out(`${s.id.padEnd(12)} ${strategySource(s.source).padEnd(23)} ${s.needsModel ? 'model     ' : 'model-free'} ${s.title}`);
    return EXIT_CLEAN;
  }
  const path = args.positional[0];
  if (!path || args.positional.length > 1) throw new UsageError('rerun takes one <file>');
  const strategy = stringFlag(args, 'strategy');
  if (!strategy) throw new UsageError('rerun needs --strategy S (`palimpsest rerun --list-strategies`)');
  const t = target(args);
  const json = args.flags.has('json');
  // A model-free strategy asks no model: the settings are not even read (a damaged file cannot stop it).
  const needsModel = STRATEGIES.find((s) => s.id === strategy)?.needsModel ?? true;
  const chain = needsModel || args.lists.has('model') ? await chainOf(args) : { models: [], from: 'session' as const, settingsFile: null };
  if (chain.from === 'settings' && !json)
    io.err(
      `Summarization models from ${chain.settingsFile ?? 'settings'}: ${chain.models.map(modelLabel).join(' → ')} (--model or --session-model to choose otherwise)`,
    );
  const endpoints = approvedEndpoints(args, chain.from === 'flags' ? chain.models : []);
  const inspector = await openInspector(path, args);
  const ac = new AbortController();
  const onSigint = (): void => ac.abort();
  process.once('SIGINT', onSigint);
  try {
    const window = intFlag(args, 'window');
    const maxOutput = intFlag(args, 'max-output');
    const runsFile = stringFlag(args, 'runs');
    const branch = stringFlag(args, 'branch');
    const result = await runJob(inspector, {
      sessionPath: path,
      target: t,
      strategy,
      options: options(args),
      models: chain.models,
      repeat: intFlag(args, 'repeat') ?? 1,
      signal: ac.signal,
      ...(branch !== undefined ? { branch } : {}),
      ...(window !== undefined ? { window } : {}),
      ...(maxOutput !== undefined ? { maxOutput } : {}),
      ...(runsFile !== undefined ? { runsFile } : {}),
      captures: captureFlags(args),
      endpoints,
      onProgress: (p) =>
        io.err(`[${p.repeat + 1}/${p.of}] ${p.stage} ${p.done}${p.total !== null ? `/${p.total}` : ''}${p.message ? ` ${p.message}` : ''}`),
      onRun: (run) => {
        if (!json) io.out(renderRun(run));
      },
    });
    // runCli prints it, and under --json the JSON error.
    if (!result.ok) throw new CommandFailure('FAILED', result.error);
    if (json)
      io.out(
        JSON.stringify(
          { palimpsest: 1, file: result.file, windowFrom: result.windowFrom, unknowns: result.source.unknowns, runs: result.runs },
          null,
          2,
        ),
      );
    else io.err(`${result.runs.length} run(s) appended to ${result.file}`);
    return result.runs.every((r) => r.outcome === 'committed') ? EXIT_CLEAN : EXIT_FINDINGS;
  } finally {
    process.off('SIGINT', onSigint);
    await inspector.session.dispose();
  }
}

export async function runsCommand(args: ParsedArgs, io: Io): Promise<number> {
  const path = args.positional[0];
  if (!path || args.positional.length > 1) throw new UsageError('runs takes one <file>');
  const file = stringFlag(args, 'runs') ?? (await defaultRunsFile(path));
  const identity = await sourceIdentity(path);
  const captures = await captureIdentities(args);
  const { runs, problems } = await readRuns(file);
  // Every run of the session; with --capture, those made with exactly these captures.
  const mine = runs.filter((r) => r.source.path === identity.path && (captures.length === 0 || sameCaptures(r.captures, captures)));
  for (const p of problems) io.err(`${file}:${p.line}: ${p.message} (line skipped)`);
  if (args.flags.has('json'))
    io.out(
      JSON.stringify(
        { palimpsest: 1, file, identity, runs: mine.map((r) => ({ ...r, stale: r.source.fingerprint !== identity.fingerprint })) },
        null,
        2,
      ),
    );
  else io.out(renderRunList(file, mine, identity));
  return EXIT_CLEAN;
}

export async function compareCommand(args: ParsedArgs, io: Io): Promise<number> {
  const path = args.positional[0];
  if (!path || args.positional.length > 1) throw new UsageError('compare takes one <file>');
  const t = target(args);
  const inspector = await openInspector(path, args);
  try {
    const branch = stringFlag(args, 'branch') ?? inspector.defaultBranch;
    const src = await resolveSource(inspector, t, branch, { joined: captureFlags(args).length > 0 });
    if (!src.ok) throw new UsageError(src.error);
    const file = stringFlag(args, 'runs') ?? (await defaultRunsFile(path));
    const identity = await sourceIdentity(path);
    const captures = await captureIdentities(args);
    const { runs, problems } = await readRuns(file);
    for (const p of problems) io.err(`${file}:${p.line}: ${p.message} (line skipped)`);
    const wantRuns = new Set(args.lists.get('run') ?? []);
    const batch = stringFlag(args, 'batch');
    const key = JSON.stringify(t);
    const chosen: RunRecord[] = runs.filter(
      (r) =>
        r.source.path === identity.path &&
        JSON.stringify(r.target) === key &&
        r.branch === branch &&
        sameTargetSpace(r, captures) &&
        (wantRuns.size === 0 || wantRuns.has(r.runId)) &&
        (batch === undefined || r.batchId === batch),
    );
    const subjects: CompareSubject[] = [];
    if ('compaction' in t) {
      const o = await originalSubject(inspector, t.compaction, branch);
      if (o) subjects.push(o);
    }
    subjects.push(...chosen.map(runSubject));
    if (subjects.length < 2)
      io.err(`Nothing to compare yet: ${chosen.length} run(s) of this target in ${file}. Run \`palimpsest rerun\` first.`);
    const c: Comparison = compare(src.source.view.items, subjects);
    io.out(args.flags.has('json') ? JSON.stringify({ palimpsest: 1, file, target: t, comparison: c }, null, 2) : renderComparison(c));
    return subjects.length < 2 ? EXIT_FINDINGS : EXIT_CLEAN;
  } finally {
    await inspector.session.dispose();
  }
}
