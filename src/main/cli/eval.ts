import { writeFile, mkdir } from 'node:fs/promises';
import { dirname, extname } from 'node:path';
import YAML from 'yaml';
import { aggregate } from '../../shared/eval/aggregate';
import { compareToBaseline, type BaselineComparison } from '../../shared/eval/baseline';
import { parseShard } from '../../shared/eval/cells';
import { draftFacts } from '../../shared/eval/draft';
import { reportHtml, reportJson, reportMarkdown, verdict, type ReportInput } from '../eval/report';
import { readResults } from '../eval/results-file';
import { runEval, type EvalOutcome } from '../eval/run';
import { resolveSource } from '../rerun/source';
import { SessionInspector } from '../session/inspector';
import { loadSession } from '../session/load';
import { intFlag, stringFlag, UsageError, type ParsedArgs } from '../command/args';
import { CAPTURE_SPEC, captureFlags, joinCaptureFlags } from './capture-flag';
import { approvedEndpoints } from './endpoints';
import { EXIT_CLEAN, EXIT_FINDINGS } from '../command/exit';
import { CommandFailure } from '../command/fail';
import { formatFlag } from './formats';

/*
 * `palimpsest eval <spec>`: run an offline evaluation (docs/eval.md) and report it. Exit 0 when every
 * threshold holds and nothing regressed against --baseline; 1 when a threshold is missed, a cell
 * regressed, a limit stopped a spec that has thresholds, or a cell could not run; 2 for bad input.
 * `palimpsest facts draft <trace>`: candidate facts for a person to confirm (never scored as drafts).
 */

interface Io {
  out(text: string): void;
  err(text: string): void;
}

export const EVAL_SPEC: Record<string, 'value' | 'boolean'> = {
  resume: 'boolean',
  shard: 'value',
  baseline: 'value',
  report: 'value',
  results: 'value',
  concurrency: 'value',
  json: 'boolean',
  'allow-endpoint': 'value',
};
export const FACTS_SPEC: Record<string, 'value' | 'boolean'> = {
  compaction: 'value',
  request: 'value',
  format: 'value',
  branch: 'value',
  max: 'value',
  ...CAPTURE_SPEC,
};

function reportInput(
  o: EvalOutcome,
  comparison: BaselineComparison | null,
  baselineFile: string | null,
  shard: { k: number; n: number } | null,
): ReportInput {
  const facts = [...o.facts.entries()].flatMap(([trace, f]) =>
    f.facts.filter((x) => x.confirmed).map((x) => ({ trace, id: x.id, category: x.category, text: x.text })),
  );
  const factsFiles = [...o.facts.entries()]
    .filter(([, f]) => f.file !== null)
    .map(([trace, f]) => ({
      trace,
      file: f.file as string,
      description: f.description,
      confirmed: f.facts.filter((x) => x.confirmed).length,
      drafts: f.facts.filter((x) => !x.confirmed).length,
    }));
  const notes = [...o.prepared.warnings, ...o.errors.map((e) => `cell could not run: ${e}`), ...o.problems];
  if (o.lines.some((l) => l.run.mock))
    notes.push('Cells on mock models were answered by the mock provider: they test the pipeline and the facts, not a model.');
  return {
    spec: { name: o.prepared.spec.name, file: o.prepared.specFile, description: o.prepared.spec.description ?? null },
    generatedAt: new Date().toISOString(),
    aggregate: o.aggregate,
    misses: o.misses,
    comparison,
    baselineFile,
    stopped: o.stopped,
    shard,
    notes,
    facts,
    factsFiles,
  };
}

async function writeReport(file: string, input: ReportInput): Promise<void> {
  const ext = extname(file).toLowerCase();
  const text =
    ext === '.html' || ext === '.htm'
      ? reportHtml(input)
      : ext === '.md'
        ? reportMarkdown(input)
        : `${JSON.stringify(reportJson(input), null, 2)}\n`;
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text);
}

export async function evalCommand(args: ParsedArgs, io: Io): Promise<number> {
  const specFile = args.positional[0];
  if (!specFile || args.positional.length > 1) throw new UsageError('eval takes one <spec> (YAML or JSON; docs/eval.md)');
  const shardText = stringFlag(args, 'shard');
  const shard = shardText === undefined ? null : parseShard(shardText);
  if (shard && !shard.ok) throw new UsageError(shard.error);
  const concurrency = intFlag(args, 'concurrency');
  const results = stringFlag(args, 'results');
  const ac = new AbortController();
  const onSigint = (): void => ac.abort();
  process.once('SIGINT', onSigint);
  let r;
  try {
    r = await runEval({
      // The user named this spec on their own command line: its endpoints are theirs to send keys to.
      specFile,
      endpoints: approvedEndpoints(args, []),
      approveSpecEndpoints: true,
      resume: args.flags.has('resume'),
      shard: shard?.ok ? shard.value : null,
      signal: ac.signal,
      ...(concurrency !== undefined ? { concurrency } : {}),
      ...(results !== undefined ? { resultsFile: results } : {}),
      log: (l) => io.err(l),
      onCell: (e) => {
        const recall = e.line?.score.recall.overall ?? null;
        const what = e.error
          ? `ERROR ${e.error}`
          : e.line
            ? `${e.line.run.outcome}${typeof recall === 'number' ? ` recall ${(recall * 100).toFixed(0)}%` : ''}${e.line.run.mock ? ' [mock]' : ''}`
            : 'cancelled';
        io.err(
          `[${e.done}/${e.total}] ${e.cell.trace.path} ${'compaction' in e.cell.target ? e.cell.target.compaction.slice(0, 12) : `request ${e.cell.target.request}`} ${e.cell.strategy.label} × ${e.cell.model.label}${e.cell.fault ? ` (${e.cell.fault.name})` : ''} #${e.cell.repeat.index + 1}: ${what}`,
        );
      },
    });
  } finally {
    process.off('SIGINT', onSigint);
  }
  // runCli prints it, and under --json the JSON error.
  if (!r.ok) throw new CommandFailure('FAILED', r.error);
  const o = r.value;
  for (const w of o.prepared.warnings) io.err(`warning: ${w}`);
  for (const p of o.problems) io.err(`warning: ${p}`);
  io.err(
    `${o.ran} cell(s) run, ${o.skipped} already in ${o.resultsFile}${shard?.ok ? ` (shard ${shard.value.k}/${shard.value.n}: ${o.shardCells} of ${o.totalCells} cells)` : ` (${o.totalCells} cells)`}`,
  );
  let comparison: BaselineComparison | null = null;
  const baselineFile = stringFlag(args, 'baseline') ?? null;
  if (baselineFile) {
    const b = await readResults(baselineFile, o.prepared.spec.name);
    if (!b.exists) throw new UsageError(`--baseline ${baselineFile}: no such file`);
    for (const p of b.problems) io.err(`warning: baseline ${p}`);
    comparison = compareToBaseline(o.aggregate, aggregate(b.lines));
  }
  const input = reportInput(o, comparison, baselineFile, shard?.ok ? shard.value : null);
  for (const file of args.lists.get('report') ?? []) {
    await writeReport(file, input);
    io.err(`report written to ${file}`);
  }
  io.out(
    args.flags.has('json')
      ? JSON.stringify({ palimpsest: 1, resultsFile: o.resultsFile, report: reportJson(input) }, null, 2)
      : reportMarkdown(input),
  );
  const v = verdict(input);
  const limitFails = o.stopped !== null && Object.keys(o.prepared.spec.thresholds).length > 0;
  return v.ok && !limitFails && o.errors.length === 0 ? EXIT_CLEAN : EXIT_FINDINGS;
}

export async function factsCommand(args: ParsedArgs, io: Io): Promise<number> {
  const [sub, path, ...rest] = args.positional;
  if (sub !== 'draft' || !path || rest.length > 0)
    throw new UsageError('usage: palimpsest facts draft <trace> (--compaction ID | --request N)');
  const c = stringFlag(args, 'compaction');
  const q = intFlag(args, 'request');
  if ((c === undefined) === (q === undefined)) throw new UsageError('give exactly one of --compaction ID or --request N');
  const target = c !== undefined ? { compaction: c } : { request: q as number };
  // An eval reads its traces from the log alone: a request of the joined list would name another one there.
  if (q !== undefined && captureFlags(args).length > 0)
    throw new UsageError(
      "facts are scored on the log alone, where --request N is not the joined list's N: draft from --compaction ID, or drop --capture",
    );
  const session = await loadSession(path, { format: formatFlag(args) });
  const inspector = new SessionInspector(session);
  try {
    const branch = stringFlag(args, 'branch') ?? inspector.defaultBranch;
    // With --capture the facts are drafted from the joined session's source (the request as sent).
    await joinCaptureFlags(inspector, args, branch);
    const src = await resolveSource(inspector, target, branch, { joined: captureFlags(args).length > 0 });
    if (!src.ok) throw new UsageError(src.error);
    const max = intFlag(args, 'max');
    const draft = draftFacts(src.source.view.items, { target, trace: path, ...(max !== undefined ? { maxPerKind: max } : {}) });
    io.out(
      `# Draft facts for ${path} (${'compaction' in target ? `compaction ${target.compaction}` : `request ${target.request}`}).\n# Every fact is confirmed: false and is never scored until a person checks it against the trace and sets confirmed: true.\n${YAML.stringify(draft)}`,
    );
    return EXIT_CLEAN;
  } finally {
    await session.dispose();
  }
}
