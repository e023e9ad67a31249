import { aboveShare, type HealthBucket } from '../../shared/health/aggregate';
import type { HealthReport } from '../../shared/health/report';
import { grouped } from '../../shared/grouped';

/*
 * `palimpsest report` in a terminal: one line per bucket, then the findings by rule and the
 * sessions that could not be read. Session text (projects, paths, errors) is untrusted: control
 * characters never reach the terminal.
 */

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]+/g;
const strip = (s: string): string => s.replace(CONTROL, ' ');

const num = (n: number): string => grouped(Math.round(n));
const kilo = (n: number | null): string =>
  n === null ? '—' : n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(0)}k` : num(n);
const pct = (x: number | null): string => (x === null ? '—' : `${(x * 100).toFixed(x < 0.1 && x > 0 ? 1 : 0)} %`);

function ellipsis(s: string, max: number): string {
  return s.length > max ? `…${s.slice(s.length - max + 1)}` : s;
}

/** Mean tokens before → after over the compactions that record both. */
function beforeAfter(b: HealthBucket): string {
  if (b.measured === 0) return '—';
  return `${kilo(b.tokensBefore / b.measured)}→${kilo(b.tokensAfter / b.measured)}`;
}

function row(b: HealthBucket): string[] {
  return [
    ellipsis(strip(b.key), 40),
    num(b.sessions),
    num(b.requests),
    pct(aboveShare(b)),
    num(b.compactions),
    `${b.byTrigger.auto ?? 0}/${b.byTrigger.manual ?? 0}/${b.compactions - (b.byTrigger.auto ?? 0) - (b.byTrigger.manual ?? 0)}`,
    num(b.failed),
    num(b.inferredFailed),
    beforeAfter(b),
    kilo(b.peakContext),
    kilo(b.cacheReadTokens),
    b.cacheBreaks === 0 ? '0' : `${num(b.cacheBreaks)} (${kilo(b.cacheBreakTokens)})`,
  ];
}

const HEAD = [
  '',
  'SESSIONS',
  'REQUESTS',
  '≥TRIGGER',
  'COMPACTIONS',
  'AUTO/MAN/OTHER',
  'FAILED',
  'INFERRED',
  'MEAN BEFORE→AFTER',
  'PEAK',
  'CACHE READ',
  'CACHE BREAKS',
];

function table(rows: string[][]): string[] {
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => [...(r[i] ?? '')].length)));
  return rows.map((r) =>
    r
      .map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}

export function renderHealth(r: HealthReport): string {
  const out: string[] = [];
  if (r.total.sessions === 0) {
    out.push(r.since ? `No session with a request on or after ${r.since}.` : 'No session to report on.');
  } else {
    out.push(...table([[r.by.toUpperCase(), ...HEAD.slice(1)], ...r.buckets.map(row), ['total', ...row(r.total).slice(1)]]));
    out.push('');
    out.push(
      '≥TRIGGER: share of requests with a reported size at or above the compaction trigger (the policy TRIGGER_MISSED uses); FAILED: outcome failed, rejected or fallback; INFERRED: failures a rule infers from the log.',
    );
    const rules = Object.entries(r.total.findings).sort((a, b) => total(b[1]) - total(a[1]) || (a[0] < b[0] ? -1 : 1));
    if (rules.length > 0) {
      out.push('');
      out.push('Findings by rule (error / warning / info):');
      for (const [rule, s] of rules)
        out.push(`  ${rule.padEnd(36)} ${num(s.error).padStart(6)} ${num(s.warning).padStart(6)} ${num(s.info).padStart(6)}`);
    }
  }
  out.push('');
  out.push(
    `${num(r.total.sessions)} session${r.total.sessions === 1 ? '' : 's'}: ${num(r.cached)} from the cache, ${num(r.built)} read now.`,
  );
  if (r.problems.length > 0) {
    out.push('');
    out.push(`Not read (${num(r.problems.length)}):`);
    for (const p of r.problems) out.push(`  ${strip(p.path)}: ${strip(p.error)}`);
  }
  return out.join('\n');
}

const total = (s: { error: number; warning: number; info: number }): number => s.error + s.warning + s.info;
