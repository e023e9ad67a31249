import { SEVERITY_RANK } from '../../shared/model/diagnostic';
import { CATEGORY_LABEL, TOKEN_CATEGORIES, type TokenCategory } from '../../shared/tokens/categories';
import { isEncodingName, type EncodingName } from '../../shared/tokens/encoding';
import {
  parsePolicySpec,
  PolicyError,
  POLICY_NAMES,
  type PolicyLines,
  type PolicyVerdict,
  type TokenPolicy,
} from '../../shared/tokens/policy';
import type { PrefixAnalysis } from '../../shared/tokens/prefix';
import type { RequestRow, SessionTokenReport } from '../../shared/tokens/report';
import { SessionInspector } from '../session/inspector';
import { loadSession } from '../session/load';
import { CAPTURE_SPEC, joinCaptureFlags } from './capture-flag';
import { DEFAULT_MAX_PIECE_BYTES } from '../tokens/encoder';
import { createTokenCounter, type TokenCounter } from '../tokens/pool';
import { createCommandCounter } from '../tokens/sized';
import type { ContentCountCache } from '../tokens/cache';
import { COUNT_CACHE_SPEC, openCountCache } from './count-cache';
import { SessionTokens, type CountRunStats, type ViewAccount } from '../tokens/service';
import { intFlag, stringFlag, UsageError, type ParsedArgs } from '../command/args';
import { formatFlag } from './formats';
import { EXIT_CLEAN, EXIT_FINDINGS } from '../command/exit';
import { tokensJson } from '../present/tokens';
import { sessionCacheBreaks, type SessionCacheBreaks } from '../tokens/cache-breaks';
import { breakText, breakTotalsText, priceFlags } from './tokens-breaks';
import type { Io } from '../command/io';
import { grouped } from '../../shared/grouped';

/**
 * `palimpsest tokens <file> [--request N] [--policy NAME[,field=value…]] [--price …]… [--json] [--no-cache]`: the token account
 * of every request (docs/cli.md, docs/tokens.md). Counting runs on this thread for a session of a
 * few hundred kilobytes of text and in a worker pool past that (`createCommandCounter`), owned by
 * the command and closed before it returns.
 */
export const TOKENS_SPEC: Record<string, 'value' | 'boolean'> = {
  json: 'boolean',
  format: 'value',
  session: 'value',
  branch: 'value',
  request: 'value',
  policy: 'value',
  encoding: 'value',
  estimate: 'boolean',
  workers: 'value',
  ...COUNT_CACHE_SPEC,
  price: 'value',
  ...CAPTURE_SPEC,
};

// Session text is untrusted: control characters must not reach the terminal (as in ../present/text.ts).
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]+/g;
const clean = (s: string, max = 60): string => {
  const flat = s.replace(CONTROL, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};
const num = (n: number | null | undefined): string => (n === null || n === undefined || !Number.isFinite(n) ? '—' : grouped(Math.round(n)));
const pct = (x: number | null | undefined): string =>
  x === null || x === undefined || !Number.isFinite(x) ? '—' : `${(x * 100).toFixed(1)} %`;
const fix = (x: number | null | undefined, d = 3): string => (x === null || x === undefined || !Number.isFinite(x) ? '—' : x.toFixed(d));

/**
 * Local token counts of every request of a branch (null for none), counted in full: what
 * `inspect --json` reports as `estimatedTokens`. Uses `counter` when given (the caller owns it),
 * otherwise creates a counter for the call and closes it.
 */
export async function estimateRequestTokens(
  inspector: SessionInspector,
  options: { branch?: string; counter?: TokenCounter; cache?: ContentCountCache; signal?: AbortSignal } = {},
): Promise<(number | null)[]> {
  const counter = options.counter ?? createCommandCounter();
  try {
    const tokens = new SessionTokens(inspector, { counter, branch: options.branch, cache: options.cache });
    await tokens.countAll({ signal: options.signal });
    return tokens.requestTotals();
  } finally {
    if (!options.counter) await counter.dispose();
  }
}

function encodingFlag(args: ParsedArgs): EncodingName | undefined {
  const e = stringFlag(args, 'encoding');
  if (e === undefined) return undefined;
  if (!isEncodingName(e)) throw new UsageError(`--encoding must be o200k_base or cl100k_base, got "${e}"`);
  return e;
}

function cacheText(c: PrefixAnalysis): string {
  if (c.previous === null) return 'first request';
  let read = '';
  if (c.reportedCacheRead === 0 && c.sharedTokens > 0) read = '; provider cache miss (0 read)';
  else if (c.reportedCacheRead !== null)
    read = `; cache read ${num(c.reportedCacheRead)}${c.cacheReadRatio !== null ? ` (${fix(c.cacheReadRatio, 2)}× expected)` : ''}`;
  if (!c.firstChange) return `same as #${c.previous}${read}`;
  if (!c.cacheBreak) {
    return `+${num(c.appendedTokens)} after #${c.previous}${c.firstChange.cause === 'todo' ? ' (todo moved)' : ''}${read}`;
  }
  return `BREAK ${c.firstChange.cause} at ${c.firstChange.position} (${c.where}) vs #${c.previous}: ${num(c.invalidatedTokens)} invalidated, ${num(c.recomputedTokens)} recomputed${read}`;
}

function linesText(l: PolicyLines): string {
  const w =
    l.window === null
      ? 'window unknown'
      : `window ${num(l.window)}${l.windowSource === 'policy' ? ' (policy default: the log records none)' : ''}`;
  const parts = [w, `trigger ${num(l.trigger)}`];
  if (l.reactive !== null) parts.push(`reactive ${num(l.reactive)}`);
  parts.push(`raw tail ${l.rawTail !== null ? num(l.rawTail) : l.rawTailMessages !== null ? `${l.rawTailMessages} messages` : '—'}`);
  parts.push(`output reserve ${num(l.outputReserve)}`, `headroom ${num(l.headroom)}`);
  return parts.join(' · ');
}

function envelopeText(report: SessionTokenReport): string[] {
  const out: string[] = [];
  const fit = report.fit;
  const unlogged = report.requests.filter((r) => r.unloggedSystem || r.unloggedTools);
  if (unlogged.length > 0) {
    const what = [
      unlogged.some((r) => r.unloggedSystem) ? 'system prompt' : '',
      unlogged.some((r) => r.unloggedTools) ? 'tool schemas' : '',
    ]
      .filter(Boolean)
      .join(' and ');
    out.push(
      `  unlogged    ${what}: the log does not contain ${what.includes(' and ') ? 'them' : 'it'} (${num(unlogged.length)} requests)`,
    );
    if (fit) {
      const later = fit.stretches
        .slice(1)
        .map((s) => `${num(s.envelope)} after compaction ${s.stretch}`)
        .join(', ');
      out.push(
        `              measured from usage: ${num(fit.envelope)} tokens${later ? ` (${later})` : ''}; k = ${fix(fit.ratio)} provider tokens per counted token; ${num(fit.requests)} requests, spread ±${num(fit.spread)} (${fit.method})`,
      );
    } else out.push('              not measurable: no request reports usage');
  } else if (fit) {
    out.push(
      `  residual    provider − local: ${num(fit.envelope)} tokens per request + k = ${fix(fit.ratio)} per counted token (${num(fit.requests)} requests; framing and tokenizer differences)`,
    );
  }
  return out;
}

function headerText(path: string, report: SessionTokenReport, counted: CountRunStats | null, counter: TokenCounter | null): string[] {
  const out: string[] = [];
  const e = report.encoding;
  out.push(path);
  out.push(`  encoding    ${e.encoding}${e.exact ? '' : ' (approximation)'}: ${e.note}`);
  if (counted) {
    out.push(
      `  counted     ${num(counted.chars)} characters of ${num(counted.refs)} texts (${num(counted.fromCache)} from the cache, ${num(counted.hydrated)} re-read) in ${(counted.wallMs / 1000).toFixed(1)} s on ${counter?.threads ?? 0} ${counter?.kind === 'workers' ? 'worker threads' : 'thread (inline)'}; js-tiktoken, pieces ≤ ${DEFAULT_MAX_PIECE_BYTES} bytes${counted.encoder.estimatedTokens > 0 ? `; ${num(counted.encoder.estimatedTokens)} tokens of pathological runs estimated` : ''}`,
    );
  } else out.push('  counted     nothing (--estimate): figures are characters ÷ 4, labelled estimates');
  if (report.partial > 0) out.push(`  estimates   ${report.partial} requests still contain figures estimated from characters`);
  const withUsage = report.requests.filter((r) => r.reportedTokens !== null).length;
  out.push(`  reported    ${num(withUsage)} of ${num(report.requests.length)} requests carry provider usage (authoritative)`);
  out.push(...envelopeText(report));
  const p = report.policy.policy;
  out.push(
    `  policy      ${p.id} — ${p.name}: ${p.description}; measures the ${p.measure} context${p.edited.length > 0 ? `; edited: ${p.edited.join(', ')}` : ''}`,
  );
  const ev = report.policy;
  const list = (xs: readonly number[]): string => {
    if (xs.length === 0) return 'none';
    const shown = xs
      .slice(0, 12)
      .map((i) => `#${i}`)
      .join(', ');
    return xs.length > 12 ? `${shown} … (${num(xs.length)} in all)` : shown;
  };
  out.push(
    `              would compact after ${list(ev.triggers)}; the log compacted after ${list(ev.compactions)} (matched ${ev.matched.length}, unpredicted ${ev.unpredicted.length}, extra ${ev.extra.length})`,
  );
  return out;
}

function requestLine(r: RequestRow, v: PolicyVerdict | undefined, breaks: SessionCacheBreaks): string {
  const est = `${num(r.estimatedTokens)}${r.uncounted > 0 ? '~' : ''}`;
  const policy = v ? `${v.state}${v.firstOfRun ? '*' : ''}` : '';
  return `  #${String(r.index).padEnd(5)} ${r.purpose.padEnd(10)} ${est.padStart(10)} ${num(r.reportedTokens).padStart(10)} ${fix(r.ratio).padStart(7)} ${num(r.unlogged).padStart(9)} ${pct(v?.fill).padStart(8)} ${policy.padEnd(12)} ${cacheText(r.cache)}${breakText(breaks.byIndex.get(r.index))}`;
}

function renderReport(
  path: string,
  report: SessionTokenReport,
  counted: CountRunStats | null,
  counter: TokenCounter | null,
  breaks: SessionCacheBreaks,
): string {
  const out = headerText(path, report, counted, counter);
  out.push(breakTotalsText(breaks.totals));
  const verdicts = new Map(report.policy.verdicts.map((v) => [v.index, v]));
  const first = report.policy.verdicts[0];
  if (first) out.push(`              ${linesText(first.lines)}`);
  out.push('');
  out.push(
    `  ${'request'.padEnd(6)} ${'purpose'.padEnd(10)} ${'estimated'.padStart(10)} ${'reported'.padStart(10)} ${'ratio'.padStart(7)} ${'unlogged'.padStart(9)} ${'fill'.padStart(8)} ${'policy'.padEnd(12)} prompt cache`,
  );
  for (const r of report.requests) out.push(requestLine(r, verdicts.get(r.index), breaks));
  out.push('');
  out.push("estimated: local count of what the log shows (~: part still estimated from characters); reported: the provider's figure;");
  out.push('unlogged: reported − k × estimated; policy state * = the request after which the policy would compact.');
  return out.join('\n');
}

function renderView(
  path: string,
  report: SessionTokenReport,
  view: ViewAccount,
  counted: CountRunStats | null,
  counter: TokenCounter | null,
  breaks: SessionCacheBreaks,
): string {
  const out = headerText(path, report, counted, counter);
  const row = report.requests[view.index] as RequestRow;
  const v = report.policy.verdicts.find((x) => x.index === view.index);
  const r = view.tokens.request;
  out.push('');
  out.push(
    `Request #${view.index} (${clean(r.id, 40)}) at seq ${r.seq}: ${r.purpose}, ${clean(r.route.provider ?? '?', 20)}/${clean(r.route.model ?? '?', 40)}`,
  );
  out.push(
    `  estimated   ${num(row.estimatedTokens)} tokens${row.uncounted > 0 ? ` (${num(row.uncounted)} of them estimated from characters)` : ' (counted)'} with ${report.encoding.encoding}${report.encoding.exact ? '' : ' (approximation)'}`,
  );
  out.push(
    `  reported    ${row.reportedTokens === null ? 'no usage in the log' : `${num(row.reportedTokens)} (provider; authoritative) · ratio ${fix(row.ratio)} · unlogged ${num(row.unlogged)}`}`,
  );
  out.push('');
  out.push(`  ${'category'.padEnd(30)} ${'tokens'.padStart(10)} ${'share'.padStart(8)}`);
  const total = view.tokens.total;
  TOKEN_CATEGORIES.forEach((c: TokenCategory, i) => {
    const t = view.tokens.byCategory[i] as number;
    let note = '';
    if (c === 'system' && view.tokens.unloggedSystem) note = '  not logged (measured with the tools: see "unlogged")';
    if (c === 'tools' && view.tokens.unloggedTools) note = '  not logged';
    if (t === 0 && !note) return;
    out.push(`  ${CATEGORY_LABEL[c].padEnd(30)} ${num(t).padStart(10)} ${pct(total > 0 ? t / total : null).padStart(8)}${note}`);
  });
  out.push(`  ${'total'.padEnd(30)} ${num(total).padStart(10)}`);
  const u = view.tokens.uncountable;
  if (u.images + u.opaque + u.redacted + view.tokens.maskedUnknown > 0) {
    out.push(
      `  not countable: ${u.images} images, ${u.opaque} opaque blocks, ${u.redacted} redacted reasoning, ${view.tokens.maskedUnknown} masked items without recorded reference`,
    );
  }
  out.push('');
  out.push(`  policy ${report.policy.policy.id}: ${linesText(view.lines)}`);
  if (v) {
    out.push(
      `         size ${num(v.size)} (${v.sizeSource}) · ${report.policy.policy.measure} ${num(v.measured)} · fill ${pct(v.fill)} → ${v.state}${v.firstOfRun ? ' (the policy would compact after this request)' : ''}${v.compactedAfter ? `; the log compacted after it (${clean(v.compactedAfter, 40)})` : ''}`,
    );
  }
  out.push(
    `  prompt cache: ${cacheText(view.cache)}${view.cache.previous !== null ? `; shared prefix ${view.cache.sharedUnits} positions, ${num(view.cache.sharedTokens)} tokens` : ''}${breakText(breaks.byIndex.get(view.index))}`,
  );
  out.push('');
  out.push(`  ${'pos'.padStart(4)} ${'item'.padEnd(24)} ${'kind'.padEnd(12)} ${'tokens'.padStart(9)}  categories`);
  for (const x of view.units) {
    const cats = Object.entries(x.categories)
      .filter(([k]) => k !== 'framing')
      .map(([k, t]) => `${k} ${num(t)}`)
      .join(', ');
    const mark = x.unknown ? ' (not in the log)' : x.rendition === 'masked' ? ' [masked]' : '';
    out.push(
      `  ${String(x.position).padStart(4)} ${clean(x.label, 24).padEnd(24)} ${x.kind.padEnd(12)} ${`${num(x.tokens)}${x.estimated > 0 ? '~' : ''}`.padStart(9)}  ${cats}${mark}`,
    );
  }
  return out.join('\n');
}

export async function tokensCommand(args: ParsedArgs, io: Io): Promise<number> {
  const path = args.positional[0];
  if (!path || args.positional.length > 1) throw new UsageError('tokens takes one <file>');
  const index = intFlag(args, 'request');
  const encoding = encodingFlag(args);
  const workers = intFlag(args, 'workers');
  const prices = priceFlags(args);
  const session = await loadSession(path, { format: formatFlag(args), session: stringFlag(args, 'session') });
  const inspector = new SessionInspector(session);
  const counter = args.flags.has('estimate')
    ? null
    : workers !== undefined
      ? createTokenCounter({ size: Math.max(1, workers), inline: workers === 0 })
      : createCommandCounter();
  try {
    const branch = stringFlag(args, 'branch') ?? inspector.defaultBranch;
    if (!inspector.hasBranch(branch))
      throw new UsageError(`no branch "${branch}" in ${path}; branches: ${inspector.branches.map((b) => b.name).join(', ')}`);
    await joinCaptureFlags(inspector, args, stringFlag(args, 'branch'));
    // The same diagnostics, hence the same exit code, as the other commands.
    await inspector.loadRuleTexts(branch);
    const counts = openCountCache(args, io);
    const tokens = new SessionTokens(inspector, { counter, branch, encoding, cache: counts.cache });
    const n = tokens.state.requests.length;
    if (index !== undefined && index >= n)
      throw new UsageError(`no request ${index} in ${path}: it has ${n} request${n === 1 ? '' : 's'} (0–${Math.max(0, n - 1)})`);
    let policy: TokenPolicy;
    try {
      const spec = stringFlag(args, 'policy');
      policy = spec ? parsePolicySpec(spec, tokens.loggedPolicy()) : tokens.defaultPolicy();
    } catch (e) {
      if (e instanceof PolicyError) throw new UsageError(`--policy: ${e.message} (presets: ${POLICY_NAMES.join(', ')}, logged)`);
      throw e;
    }
    const counted = counter ? await tokens.countAll() : null;
    counts.save();
    const report = tokens.report(policy);
    const view = index !== undefined ? tokens.view(index, policy) : null;
    const breaks = sessionCacheBreaks(tokens, report, prices);
    if (args.flags.has('json')) io.out(JSON.stringify(tokensJson(path, tokens, report, counted, counter, view, breaks), null, 2));
    else io.out(view ? renderView(path, report, view, counted, counter, breaks) : renderReport(path, report, counted, counter, breaks));
    return inspector.diagnostics(branch).some((d) => SEVERITY_RANK[d.severity] >= SEVERITY_RANK.error) ? EXIT_FINDINGS : EXIT_CLEAN;
  } finally {
    await counter?.dispose();
    await session.dispose();
  }
}
