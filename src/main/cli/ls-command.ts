import { parseArgs, UsageError, type ParsedArgs } from '../command/args';
import { listSessions } from '../catalog/list';
import type { Discovery } from '../discovery/discover';
import { ALIASES, parseRootFlag } from '../discovery/locations';
import { scanInParallel } from '../discovery/parallel';
import { HARNESSES, type Harness, type SessionSummary } from '../discovery/types';
import { grouped } from '../../shared/grouped';

/**
 * `palimpsest ls [--harness H[,H…]] [--root H=PATH]… [--json] [--no-cache]`: the local sessions
 * of every harness, from their default folders and the environment's overrides (docs/cli.md).
 *
 * The command lives here, importing nothing of the rest of the CLI (whose argument parser loads
 * every importer), so that it can also be bundled on its own (./ls-entry.ts → dist/ls.js: a small
 * bundle that starts fast, and the code of the scan workers). src/main/cli/ls.ts is its entry in
 * `palimpsest`'s command table, where LsUsageError becomes the CLI's UsageError (exit 2).
 */

/** Bad usage of `ls`: a sentence for the user. */
export class LsUsageError extends Error {}

/** Parsed arguments: the CLI's, which keep every value of a repeated option (`--root`). */
export type LsArgs = ParsedArgs;

/** The CLI's strict parser (unknown options are errors); its UsageError is turned into ours. */
export function parseLsArgs(argv: readonly string[], spec: Readonly<Record<string, 'value' | 'boolean'>>): LsArgs {
  try {
    return parseArgs(argv, spec);
  } catch (e) {
    if (e instanceof UsageError) throw new LsUsageError(e.message);
    throw e;
  }
}

/** Where the command writes (the CLI's Io). */
export interface LsIo {
  out(text: string): void;
  err(text: string): void;
}

export const LS_SPEC: Record<string, 'value' | 'boolean'> = {
  harness: 'value',
  root: 'value',
  json: 'boolean',
  'no-cache': 'boolean',
};

/** The `--json` shape's version (the CLI's JSON_VERSION; kept equal to it). */
const LS_JSON_VERSION = 1;

/** Every value of a repeatable flag: all of them when the parser keeps them (`lists`), else the last. */
function values(args: LsArgs, name: string): string[] {
  const all = args.lists.get(name);
  if (all && all.length > 0) return [...all];
  const one = args.flags.get(name);
  return typeof one === 'string' ? [one] : [];
}

function harnessesOf(args: LsArgs): Harness[] | undefined {
  const v = values(args, 'harness');
  if (v.length === 0) return undefined;
  const out: Harness[] = [];
  for (const name of v.flatMap((x) => x.split(','))) {
    const h = ALIASES[name.trim()];
    if (!h) throw new LsUsageError(`--harness must be one of ${HARNESSES.join(', ')}; got "${name}"`);
    if (!out.includes(h)) out.push(h);
  }
  return out;
}

/** Runs `ls`; `clean` is the exit code of a run that listed what it found (the CLI's EXIT_CLEAN). */
export async function runLs(args: LsArgs, io: LsIo, clean: number): Promise<number> {
  if (args.positional.length > 0)
    throw new LsUsageError(`ls takes no positional argument (got "${args.positional[0] ?? ''}"); use --root HARNESS=PATH`);
  const harnesses = harnessesOf(args);
  const roots = values(args, 'root').map((r) => {
    try {
      return parseRootFlag(r);
    } catch (e) {
      throw new LsUsageError(e instanceof Error ? e.message : String(e));
    }
  });
  // A --root of a harness not asked for by --harness is still listed.
  const wanted = harnesses ? [...new Set([...harnesses, ...roots.map((r) => r.harness)])] : undefined;
  const d = await listSessions({
    roots,
    useIndex: !args.flags.has('no-cache'),
    scanMany: scanInParallel,
    ...(wanted ? { harnesses: wanted } : {}),
  });
  for (const p of [...d.index.problems, ...d.problems]) io.err(`palimpsest ls: ${strip(p)}`);
  io.out(args.flags.has('json') ? JSON.stringify(lsJson(d), null, 2) : renderLs(d));
  return clean;
}

/** The `--json` answer (docs/cli.md, "palimpsest ls"). */
export function lsJson(d: Discovery) {
  return {
    palimpsest: LS_JSON_VERSION,
    sessions: d.sessions.map((s) => ({
      harness: s.harness,
      path: s.path,
      id: s.id,
      project: s.project,
      title: s.title,
      startedAt: s.startedAt,
      endedAt: s.endedAt,
      bytes: s.bytes,
      files: s.files,
      requests: s.requests,
      compactions: s.compactions,
      harnessVersion: s.harnessVersion,
      model: s.model,
      badLines: s.badLines,
      cached: s.cached,
      problems: s.problems,
    })),
    roots: d.roots.map((r) => ({ harness: r.harness, path: r.path, source: r.source, exists: r.exists, sessions: r.sessions })),
    index: { path: d.index.path, hits: d.index.hits, scanned: d.index.scanned, written: d.index.written, problems: d.index.problems },
    problems: d.problems,
  };
}

// Session text is untrusted: control characters (escape sequences included) must not reach the terminal.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]+/g;
const strip = (s: string): string => s.replace(CONTROL, ' ');

function size(n: number): string {
  if (n < 1000) return `${n} B`;
  if (n < 1e6) return `${(n / 1e3).toFixed(1)} kB`;
  if (n < 1e9) return `${(n / 1e6).toFixed(1)} MB`;
  return `${(n / 1e9).toFixed(2)} GB`;
}

/** `2026-02-12 16:02Z` (UTC, so that the same log prints the same anywhere). */
function when(iso: string | null): string {
  if (iso === null) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return strip(iso).slice(0, 17);
  return `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 16)}Z`;
}

const count = (n: number | null): string => (n === null ? '—' : grouped(n));

function ellipsis(s: string, max: number): string {
  return s.length > max ? `…${s.slice(s.length - max + 1)}` : s;
}

export function renderLs(d: Discovery): string {
  const out: string[] = [];
  if (d.sessions.length === 0) {
    out.push('No sessions found. Looked in:');
    for (const r of d.roots) out.push(`  ${r.harness.padEnd(12)} ${r.path}${r.exists ? '' : ' (missing)'}  [${r.source}]`);
    return out.join('\n');
  }
  const rows: string[][] = [['HARNESS', 'STARTED', 'PROJECT', 'SIZE', 'REQUESTS', 'COMPACTIONS', 'PATH']];
  for (const s of d.sessions) rows.push(row(s));
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => [...(r[i] ?? '')].length))) ?? [];
  const right = new Set([3, 4, 5]);
  for (const r of rows) {
    out.push(
      r
        .map((c, i) => (i === r.length - 1 ? c : right.has(i) ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0)))
        .join('  ')
        .trimEnd(),
    );
  }
  const bytes = d.sessions.reduce((a, s) => a + s.bytes, 0);
  const per = new Map<string, number>();
  for (const s of d.sessions) per.set(s.harness, (per.get(s.harness) ?? 0) + 1);
  out.push('');
  out.push(
    `${d.sessions.length} session${d.sessions.length === 1 ? '' : 's'}, ${size(bytes)} (${[...per].map(([h, n]) => `${h} ${n}`).join(', ')})`,
  );
  out.push(
    d.index.path === null
      ? `index: not used${d.index.problems.length > 0 ? '' : ' (--no-cache)'}; ${d.index.scanned} scanned`
      : `index: ${d.index.hits} from ${d.index.path}, ${d.index.scanned} scanned${d.index.written ? ', updated' : ''}`,
  );
  return out.join('\n');
}

function row(s: SessionSummary): string[] {
  return [
    s.harness,
    when(s.startedAt),
    ellipsis(strip(s.project ?? '—'), 48),
    size(s.bytes),
    count(s.requests),
    count(s.compactions),
    // A database or storage folder holds many sessions: the path opens one with --session.
    strip(s.harness === 'opencode' && s.id !== null ? `${s.path} --session ${s.id}` : s.path),
  ];
}
