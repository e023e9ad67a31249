import { grouped } from '../../shared/grouped';
import { type ParsedArgs, UsageError } from '../command/args';
import { EXIT_CLEAN } from '../command/exit';
import type { Io } from '../command/io';
import { ALIASES, parseRootFlag } from '../discovery/locations';
import { scanInParallel } from '../discovery/parallel';
import { HARNESSES } from '../discovery/types';
import {
  HIT_END,
  HIT_START,
  searchCatalog,
  SearchQueryError,
  type SearchFilters,
  type SearchAnswer,
  type SearchHit,
  sinceOf,
} from '../catalog/search';
import { extractSession } from '../catalog/extract';
import { catalogDir, SessionCatalog } from '../catalog/update';

/**
 * `palimpsest search QUERY [--root H=PATH]… [--harness H] [--project P] [--since D] [--model M]
 * [--has compaction|finding] [--limit N] [--json]`: full-text search over every local session,
 * through the session index (src/main/catalog), brought up to date first. Each hit names the
 * session, the first request that could show the item, the item, a snippet and the item's fate at
 * the latest request (docs/search.md).
 */

export const SEARCH_SPEC: Record<string, 'value' | 'boolean'> = {
  root: 'value',
  harness: 'value',
  project: 'value',
  since: 'value',
  model: 'value',
  has: 'value',
  limit: 'value',
  json: 'boolean',
};

const values = (args: ParsedArgs, name: string): string[] => {
  const all = args.lists.get(name);
  if (all && all.length > 0) return [...all];
  const one = args.flags.get(name);
  return typeof one === 'string' ? [one] : [];
};

const str = (args: ParsedArgs, name: string): string | undefined => {
  const v = args.flags.get(name);
  return typeof v === 'string' ? v : undefined;
};

// Session text is untrusted: control characters (escape sequences included) must not reach the terminal.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0001\u0004-\u001f\u007f-\u009f]+/g;

/** A snippet for the terminal: bold on a terminal that takes colour, else the match between » and «. */
function shown(snippet: string, tty: boolean): string {
  const clean = snippet.replace(CONTROL, ' ');
  return tty
    ? clean.replaceAll(HIT_START, '\u001b[1;33m').replaceAll(HIT_END, '\u001b[0m')
    : clean.replaceAll(HIT_START, '»').replaceAll(HIT_END, '«');
}

function fateText(fate: string | null): string {
  return fate === null ? 'after the latest request' : `${fate} at the latest request`;
}

/** What a capped search says: the hits are not the best of every match (search.ts, RANK_CAP). */
export const cappedNote = (cap: number): string =>
  `more than ${grouped(cap)} matches: these are the best of the ${grouped(cap)} indexed last, not of all; narrow the query or add filters`;

function render(hits: readonly SearchHit[], capped: number | null, tty: boolean): string {
  if (hits.length === 0) return 'No matches.';
  const out: string[] = [];
  for (const h of hits) {
    const where = `${h.path}${h.session ? ` --session ${h.session}` : ''}`.replace(CONTROL, ' ');
    const req = h.request === null ? 'after the last request' : `request ${h.request}`;
    out.push(`${where}  ${req}  item ${h.item.id.replace(CONTROL, ' ')} (${h.item.kind})  ${fateText(h.fate)}`);
    out.push(`  ${shown(h.snippet, tty)}`);
  }
  out.push('', `${hits.length} match${hits.length === 1 ? '' : 'es'}${capped === null ? '' : ` (${cappedNote(capped)})`}`);
  return out.join('\n');
}

export async function searchCommand(args: ParsedArgs, io: Io): Promise<number> {
  if (args.positional.length !== 1) throw new UsageError('search takes one QUERY (quote it: palimpsest search "compaction failed")');
  const query = args.positional[0] as string;
  const harnessName = str(args, 'harness');
  const harness = harnessName === undefined ? undefined : ALIASES[harnessName.trim()];
  if (harnessName !== undefined && !harness) throw new UsageError(`--harness must be one of ${HARNESSES.join(', ')}; got "${harnessName}"`);
  const has = str(args, 'has');
  if (has !== undefined && has !== 'compaction' && has !== 'finding')
    throw new UsageError(`--has takes compaction or finding; got "${has}"`);
  const limitText = str(args, 'limit') ?? '50';
  const limit = Number(limitText);
  if (!Number.isSafeInteger(limit) || limit < 1) throw new UsageError(`--limit takes a positive whole number; got "${limitText}"`);
  const roots = values(args, 'root').map((r) => {
    try {
      return parseRootFlag(r);
    } catch (e) {
      throw new UsageError(e instanceof Error ? e.message : String(e));
    }
  });
  let filters: SearchFilters;
  try {
    const since = str(args, 'since');
    filters = {
      ...(harness ? { harness } : {}),
      ...(str(args, 'project') !== undefined ? { project: str(args, 'project') } : {}),
      ...(since !== undefined ? { since: sinceOf(since) } : {}),
      ...(str(args, 'model') !== undefined ? { model: str(args, 'model') } : {}),
      ...(has ? { has: has as 'compaction' | 'finding' } : {}),
    };
  } catch (e) {
    if (e instanceof SearchQueryError) throw new UsageError(e.message);
    throw e;
  }

  const options = { roots, scanMany: scanInParallel, ...(harness ? { harnesses: [harness] } : {}) };
  const where = catalogDir(options);
  if (where.dir === null) throw new UsageError(where.problem ?? 'no folder for the index');
  const catalog = SessionCatalog.open(where.dir);
  try {
    if (catalog.rebuilt) io.err(`palimpsest search: ${catalog.rebuilt}`);
    // A first search reads every session: say how far it got, on a terminal only (stderr stays clean in pipes and tests).
    const tty = process.stderr.isTTY === true;
    const report = await catalog.update({
      ...options,
      content: true,
      extract: extractSession,
      ...(tty ? { onProgress: (done: number, total: number) => process.stderr.write(`\rindexing ${done}/${total} sessions…`) } : {}),
    });
    if (tty && report.added + report.changed + report.appended > 0) process.stderr.write('\r\u001b[K');
    for (const p of report.problems) io.err(`palimpsest search: ${p.replace(CONTROL, ' ')}`);
    let answer: SearchAnswer;
    try {
      // Only the sessions under the roots walked now: the index may hold others, from other roots.
      const under = report.roots.filter((r) => r.exists).map((r) => r.path);
      answer = searchCatalog(catalog.db, query, { ...filters, under }, limit);
    } catch (e) {
      if (e instanceof SearchQueryError) throw new UsageError(e.message);
      throw e;
    }
    const { hits, capped } = answer;
    if (args.flags.has('json')) {
      io.out(
        JSON.stringify(
          {
            hits: hits.map((h) => ({
              path: h.path,
              session: h.session,
              harness: h.harness,
              request: h.request,
              item: h.item,
              snippet: h.snippet.replaceAll(HIT_START, '[').replaceAll(HIT_END, ']'),
              fate: h.fate,
            })),
            // null: every match ranked; a number: more matched, the hits are the best of that many indexed last.
            capped,
            index: {
              path: report.path,
              sessions: report.sessions,
              read: report.added + report.changed + report.appended,
              removed: report.removed,
            },
          },
          null,
          2,
        ),
      );
    } else io.out(render(hits, capped, process.stdout.isTTY === true && process.env.NO_COLOR === undefined));
    return EXIT_CLEAN;
  } finally {
    catalog.close();
  }
}
