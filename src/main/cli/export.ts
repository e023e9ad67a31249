import { realpath, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { stringFlag, UsageError, type ParsedArgs } from '../command/args';
import { EXIT_CLEAN } from '../command/exit';
import type { Io } from '../command/io';
import { PatternError } from '../../shared/redact/own-patterns';
import { MAX_LISTED, Redactor } from '../../shared/redact/redactor';
import { ExportInputError, exportSession, type ExportKind, type ExportSummary } from '../api/export/export';
import { FileSink, NullSink } from '../api/export/sink';
import { JSON_VERSION } from '../present/json';
import { SessionInspector } from '../session/inspector';
import { loadSession } from '../session/load';
import type { LoadedSession } from '../session/types';
import { formatFlag } from './formats';
import { grouped } from '../../shared/grouped';

/**
 * `palimpsest export <file> (--html OUT | --markdown OUT --compaction ID) [--redact]
 * [--redact-pattern REGEX]… [--preview | --dry-run] [--json] [--format F] [--session ID] [--branch B]`:
 * a session as one self-contained HTML file, or one compaction as Markdown, redacted when asked;
 * `--preview` lists what would be redacted, and where, without writing anything (docs/export.md).
 */

export const EXPORT_SPEC: Record<string, 'value' | 'boolean'> = {
  html: 'value',
  markdown: 'value',
  compaction: 'value',
  redact: 'boolean',
  'redact-pattern': 'value',
  preview: 'boolean',
  'dry-run': 'boolean',
  json: 'boolean',
  format: 'value',
  session: 'value',
  branch: 'value',
};

interface Plan {
  readonly kind: ExportKind;
  readonly out: string | null;
  readonly preview: boolean;
  readonly red: Redactor;
}

function plan(args: ParsedArgs): Plan {
  const html = stringFlag(args, 'html');
  const markdown = stringFlag(args, 'markdown');
  const compaction = stringFlag(args, 'compaction');
  const preview = args.flags.has('preview') || args.flags.has('dry-run');
  if (html !== undefined && markdown !== undefined) throw new UsageError('--html and --markdown exclude each other: export one at a time');
  if (html !== undefined && compaction !== undefined)
    throw new UsageError('--compaction picks the compaction of a Markdown export (--markdown OUT); an HTML export holds them all');
  if (markdown !== undefined && compaction === undefined)
    throw new UsageError('--markdown exports one compaction: name it with --compaction ID (`palimpsest inspect` lists them)');
  if (!preview && html === undefined && markdown === undefined)
    throw new UsageError('export needs --html OUT, or --markdown OUT --compaction ID (or --preview to list redactions)');
  const patterns = args.lists.get('redact-pattern') ?? [];
  let red: Redactor;
  try {
    // An own pattern turns redaction on: the built-in rules run too.
    red = new Redactor({ builtIn: args.flags.has('redact') || patterns.length > 0, patterns });
  } catch (err: unknown) {
    if (err instanceof PatternError) throw new UsageError(err.message);
    throw err;
  }
  if (preview && !red.active) throw new UsageError('--preview lists what redaction would change: add --redact or --redact-pattern REGEX');
  return { kind: markdown !== undefined || compaction !== undefined ? 'markdown' : 'html', out: html ?? markdown ?? null, preview, red };
}

/** The export must never land on the session: not on one of its files, nor inside a session folder. */
async function refuseSource(out: string, input: string, session: LoadedSession): Promise<void> {
  const real = async (p: string): Promise<string> => realpath(p).catch(() => resolve(p));
  const sources = [await real(input), ...(await Promise.all(session.files.map((f) => real(f.path))))];
  // The target may not exist yet: its folder is resolved instead.
  const target = join(await real(dirname(resolve(out))), basename(out));
  if (sources.includes(target)) throw new UsageError(`${out} is the session itself: an export never writes to its source`);
  if (
    await stat(input).then(
      (s) => s.isDirectory(),
      () => false,
    )
  ) {
    const rel = relative(sources[0] as string, target);
    if (rel !== '' && !rel.startsWith('..') && !isAbsolute(rel))
      throw new UsageError(`${out} is inside the session folder ${input}: an export never writes into its source`);
  }
}

function summaryLine(s: ExportSummary): string {
  if (s.redactions === 0) return 'nothing redacted';
  const rules = Object.entries(s.byRule)
    .sort((a, b) => b[1] - a[1])
    .map(([r, n]) => `${r} ${n}`)
    .join(', ');
  return `${s.redactions} redaction${s.redactions === 1 ? '' : 's'} (${rules})`;
}

export async function exportCommand(args: ParsedArgs, io: Io): Promise<number> {
  const path = args.positional[0];
  if (!path || args.positional.length > 1) throw new UsageError('export takes one <file>');
  const p = plan(args);
  const json = args.flags.has('json');
  const session = await loadSession(path, { format: formatFlag(args), session: stringFlag(args, 'session') });
  try {
    const inspector = new SessionInspector(session);
    const branch = stringFlag(args, 'branch') ?? inspector.defaultBranch;
    await inspector.loadRuleTexts(inspector.hasBranch(branch) ? branch : undefined);
    const options = { kind: p.kind, branch, compaction: stringFlag(args, 'compaction') };
    if (p.preview || p.out === null) {
      const s = await run(() => exportSession(inspector, path, options, new NullSink(), p.red));
      const more = s.redactions - s.listed.length;
      if (json) io.out(JSON.stringify({ palimpsest: JSON_VERSION, path, kind: p.kind, preview: true, ...s, unlisted: more }, null, 2));
      else {
        for (const r of s.listed) io.out(`${r.rule.padEnd(24)} ${r.place} / ${r.field}\n    ${r.excerpt}`);
        if (more > 0) io.out(`… and ${more} more (at most ${MAX_LISTED} are listed)`);
        io.out(`${summaryLine(s)}; nothing written`);
      }
      return EXIT_CLEAN;
    }
    await refuseSource(p.out, path, session);
    const sink = new FileSink(p.out);
    let s: ExportSummary;
    try {
      s = await run(() => exportSession(inspector, path, options, sink, p.red));
      await sink.close();
    } catch (err: unknown) {
      await sink.abort();
      throw err;
    }
    const bytes = (await stat(p.out)).size;
    if (json)
      io.out(
        JSON.stringify(
          { palimpsest: JSON_VERSION, path, kind: p.kind, out: p.out, bytes, redactions: s.redactions, byRule: s.byRule },
          null,
          2,
        ),
      );
    else io.err(`wrote ${p.out} (${grouped(bytes)} bytes); ${p.red.active ? summaryLine(s) : 'not redacted'}`);
    return EXIT_CLEAN;
  } finally {
    await session.dispose();
  }
}

/** The export's own refusals are usage errors (exit 2). */
async function run<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err: unknown) {
    if (err instanceof ExportInputError) throw new UsageError(err.message);
    throw err;
  }
}
