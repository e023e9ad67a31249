import { stat } from 'node:fs/promises';
import { RULES, diagnose, loadRuleTexts, ruleById } from '../../shared/diagnostics';
import type { Diagnostic, Severity } from '../../shared/model/diagnostic';
import { SEVERITY_RANK } from '../../shared/model/diagnostic';
import { whyUnreadable } from '../files/open-regular';
import type { FormatId } from '../importers/types';
import { SessionInspector } from '../session/inspector';
import { loadSession, locateDiagnostics, UnreadableSessionError } from '../session/load';
import { claimedDirectory, SEARCH_DEPTH, sessionsUnder } from '../session/targets';
import { notSearchedNote } from './not-searched';
import { CAPTURE_SPEC, captureFlags, joinCaptureFlags } from './capture-flag';
import { stringFlag, UsageError, type ParsedArgs } from '../command/args';
import { formatFlag } from './formats';
import { EXIT_CLEAN, EXIT_FINDINGS, EXIT_UNUSABLE } from '../command/exit';
import { countSeverities, diagnosticJson, JSON_VERSION } from '../present/json';
import type { Io } from '../command/io';
import { grouped } from '../../shared/grouped';

/**
 * `palimpsest validate <file|dir> [--json] [--rule ID…] [--min-severity S] [--format F] [--branch B]`
 * and `palimpsest validate --list-rules [--json]`: run the diagnostics catalog (docs/diagnostics.md)
 * on sessions and report every finding with its file and line. Exit 1 when an error-level finding
 * is shown.
 */

export const VALIDATE_SPEC: Record<string, 'value' | 'boolean'> = {
  json: 'boolean',
  rule: 'value',
  'min-severity': 'value',
  format: 'value',
  session: 'value',
  branch: 'value',
  'list-rules': 'boolean',
  ...CAPTURE_SPEC,
};

const SEVERITIES: readonly Severity[] = ['info', 'warning', 'error'];

// Session text reaches messages (item ids, error strings): no control characters to the terminal.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]+/g;
const clean = (s: string): string => s.replace(CONTROL, ' ');

export interface ValidateOptions {
  /** Run only these catalog rules (and show only their findings). */
  readonly rules?: readonly string[];
  readonly minSeverity?: Severity;
  readonly branch?: string;
}

/**
 * Every finding about one session: reader, importer and replay findings, then the catalog's —
 * the same list `inspect --json` carries once the catalog is wired into SessionInspector. With
 * `rules`, only those catalog rules run and only their findings are returned.
 */
export async function validateSession(inspector: SessionInspector, options: ValidateOptions = {}): Promise<Diagnostic[]> {
  const session = inspector.session;
  const branch = options.branch ?? inspector.defaultBranch;
  const state = inspector.replay(branch);
  const base = [...session.diagnostics, ...locateDiagnostics(session, state.diagnostics)];
  const fullBlocks = await loadRuleTexts(session.events, state, (seqs) => session.hydrateMany(seqs));
  const found = diagnose(
    { events: session.events, state, format: session.format, reported: base, fullBlocks, wire: inspector.wire(branch) },
    options.rules ? { only: options.rules } : {},
  );
  const all = [...(options.rules ? [] : base), ...locateDiagnostics(session, found)];
  const min = SEVERITY_RANK[options.minSeverity ?? 'info'];
  return all.filter((d) => SEVERITY_RANK[d.severity] >= min);
}

function severityFlag(args: ParsedArgs): Severity | undefined {
  const s = stringFlag(args, 'min-severity');
  if (s === undefined) return undefined;
  if (!(SEVERITIES as readonly string[]).includes(s))
    throw new UsageError(`--min-severity must be one of ${SEVERITIES.join(', ')}, got "${s}"`);
  return s as Severity;
}

/**
 * `--rule A,B` (comma-separated), and rule ids written after it as separate words
 * (`--rule A B file`): positionals that are exactly a catalog id are rule ids, the rest the path.
 */
function ruleArgs(args: ParsedArgs): { rules: string[] | undefined; positional: string[] } {
  const flag = stringFlag(args, 'rule');
  if (flag === undefined) return { rules: undefined, positional: args.positional };
  const rules = flag
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const positional: string[] = [];
  for (const p of args.positional) {
    if (ruleById(p)) rules.push(p);
    else positional.push(p);
  }
  const unknown = rules.filter((r) => !ruleById(r));
  if (unknown.length > 0) {
    throw new UsageError(
      `unknown rule ${unknown.map((u) => `"${u}"`).join(', ')}; the rules are ${RULES.map((r) => r.id).join(', ')} (palimpsest validate --list-rules)`,
    );
  }
  if (rules.length === 0) throw new UsageError('--rule needs at least one rule id');
  return { rules: [...new Set(rules)], positional };
}

interface SessionReport {
  readonly path: string;
  readonly format: string;
  readonly branch: string;
  readonly events: number;
  readonly compactions: number;
  readonly diagnostics: Diagnostic[];
}

async function validateOne(
  path: string,
  format: FormatId | undefined,
  options: ValidateOptions,
  args?: ParsedArgs,
): Promise<SessionReport> {
  const session = await loadSession(path, { format, session: args ? stringFlag(args, 'session') : undefined });
  try {
    const inspector = new SessionInspector(session);
    if (options.branch !== undefined && !inspector.hasBranch(options.branch)) {
      throw new UsageError(`no branch "${options.branch}" in ${path}; branches: ${inspector.branches.map((b) => b.name).join(', ')}`);
    }
    const branch = options.branch ?? inspector.defaultBranch;
    if (args) await joinCaptureFlags(inspector, args, options.branch);
    const diagnostics = await validateSession(inspector, { ...options, branch });
    const state = inspector.replay(branch);
    return { path, format: session.format, branch, events: session.events.length, compactions: state.compactions.length, diagnostics };
  } finally {
    await session.dispose();
  }
}

function reportJson(r: SessionReport) {
  return {
    palimpsest: JSON_VERSION,
    path: r.path,
    format: r.format,
    branch: r.branch,
    counts: countSeverities(r.diagnostics),
    diagnostics: r.diagnostics.map(diagnosticJson),
  };
}

function renderReport(r: SessionReport): string {
  const out: string[] = [];
  out.push(
    `${clean(r.path)} — ${r.format}, branch ${clean(r.branch)}, ${grouped(r.events)} events, ${r.compactions} compaction${r.compactions === 1 ? '' : 's'}`,
  );
  for (const d of r.diagnostics) {
    const where = d.file ? `${clean(d.file)}${d.line ? `:${d.line}` : ''}` : d.seqs.length > 0 ? `seq ${d.seqs[0]}` : '';
    out.push(`  ${d.severity.padEnd(7)} ${d.rule}  ${where}`);
    out.push(`          ${clean(d.message)}`);
  }
  const n = countSeverities(r.diagnostics);
  out.push(
    r.diagnostics.length === 0
      ? '  no findings'
      : `  ${n.error} error${n.error === 1 ? '' : 's'}, ${n.warning} warning${n.warning === 1 ? '' : 's'}, ${n.info} info`,
  );
  return out.join('\n');
}

const hasError = (ds: readonly Diagnostic[]): boolean => ds.some((d) => d.severity === 'error');

function listRules(json: boolean, io: Io): number {
  if (json) {
    io.out(
      JSON.stringify(
        { palimpsest: JSON_VERSION, rules: RULES.map((r) => ({ id: r.id, severities: r.severities, title: r.title, origins: r.origins })) },
        null,
        2,
      ),
    );
  } else {
    const width = Math.max(...RULES.map((r) => r.id.length));
    for (const r of RULES) io.out(`${r.id.padEnd(width)}  ${r.severities.join('/').padEnd(15)} ${r.title}`);
    io.out('\nEach rule is documented in docs/diagnostics.md: what breaks, why it matters, how to fix it.');
  }
  return EXIT_CLEAN;
}

/** `palimpsest validate`: same signature as the commands of main.ts. */
export async function validateCommand(args: ParsedArgs, io: Io): Promise<number> {
  const json = args.flags.has('json');
  if (args.flags.has('list-rules')) {
    if (args.positional.length > 0) throw new UsageError('--list-rules takes no <file|dir>');
    return listRules(json, io);
  }
  const { rules, positional } = ruleArgs(args);
  const path = positional[0];
  if (!path || positional.length > 1) throw new UsageError('validate takes one <file|dir> (and rule ids after --rule)');
  const format = formatFlag(args);
  const options: ValidateOptions = { rules, minSeverity: severityFlag(args), branch: stringFlag(args, 'branch') };
  const info = await stat(path).catch((err: unknown) => {
    throw new UnreadableSessionError(whyUnreadable(path, err), [], path);
  });

  if (!info.isDirectory() || args.flags.has('session') || (await claimedDirectory(path)) === 'session') {
    const r = await validateOne(path, format, options, args);
    io.out(json ? JSON.stringify(reportJson(r), null, 2) : renderReport(r));
    return hasError(r.diagnostics) ? EXIT_FINDINGS : EXIT_CLEAN;
  }
  if (options.branch !== undefined) throw new UsageError('--branch needs one session, not a directory');
  if (captureFlags(args).length > 0) throw new UsageError('--capture joins one session: give a session file, not a folder');
  const notSearched: string[] = [];
  const paths = await sessionsUnder(path, SEARCH_DEPTH, notSearched);
  notSearchedNote(notSearched, io);
  if (paths.length === 0) {
    const message = `${path}: no sessions (*.jsonl, *.jsonl.zst, *.jsonl.zstd, or a session folder) found`;
    // An exit 2: the listing carries the JSON error's fields too (docs/cli.md, "Errors").
    io.out(
      json
        ? JSON.stringify({ palimpsest: JSON_VERSION, path, sessions: [], error: message, code: 'NO_SESSIONS', diagnostics: [] }, null, 2)
        : message,
    );
    return EXIT_UNUSABLE;
  }
  const sessions: unknown[] = [];
  const texts: string[] = [];
  let exit = EXIT_CLEAN;
  for (const p of paths) {
    try {
      const r = await validateOne(p, format, options);
      sessions.push(reportJson(r));
      texts.push(renderReport(r));
      if (hasError(r.diagnostics)) exit = EXIT_FINDINGS;
    } catch (err: unknown) {
      if (!(err instanceof UnreadableSessionError)) throw err;
      sessions.push({
        palimpsest: JSON_VERSION,
        path: p,
        error: err.message,
        code: 'UNREADABLE',
        diagnostics: err.diagnostics.map(diagnosticJson),
      });
      texts.push(`${clean(p)}\n  unreadable: ${clean(err.message)}`);
      exit = EXIT_FINDINGS;
    }
  }
  io.out(json ? JSON.stringify({ palimpsest: JSON_VERSION, path, sessions }, null, 2) : texts.join('\n\n'));
  return exit;
}
