import type { MatrixCell } from '../../../shared/eval/aggregate';
import { RECALL_CATEGORIES } from '../../../shared/eval/facts';
import { escapeHtml as esc, int, ms, pct, pctStat, usd } from './format';
import { factIndex, missesOf, overallCells, regressionsOf, type ReportInput } from './input';

/*
 * The tables of the HTML report. Every value from a trace, a facts file or a spec is escaped
 * here, at the point it is written into markup.
 */

const stat = (c: MatrixCell, metric: keyof MatrixCell['quality'], regressed: ReadonlySet<string>): string => {
  const s = c.quality[metric];
  const title = s === null ? 'not measured' : `min ${pct(s.min)} · max ${pct(s.max)} · ${s.n} repeat${s.n === 1 ? '' : 's'}`;
  return `<td class="num${regressed.has(metric) ? ' regressed' : ''}" title="${esc(title)}">${esc(pctStat(s))}${regressed.has(metric) ? ' ▼' : ''}</td>`;
};

export function matrixTable(input: ReportInput, cells: readonly MatrixCell[]): string {
  const judge = cells.some((c) => c.judge !== null);
  const head = [
    'Strategy',
    'Model',
    'Recall',
    ...RECALL_CATEGORIES.map((c) => c.replace('_', ' ')),
    'Stale rejection',
    'Provenance',
    'Structural errors (worst run)',
    'Warnings',
    'Failures',
    'Recovered under faults',
    'Cost / run',
    'Tokens',
    'p50 / p95 latency',
  ];
  if (judge) head.push('Judge (not ground truth)');
  const rows = cells.map((c) => {
    const regressed = new Set<string>(regressionsOf(input, c).map((d) => d.metric));
    const missed = missesOf(input, c);
    const cls = missed.length > 0 ? ' class="miss"' : '';
    const tds = [
      `<th scope="row"${cls}>${missed.length > 0 ? '<span class="badge bad" title="missed a threshold">✗</span> ' : ''}${esc(c.strategy)}</th>`,
      `<td>${esc(c.model)}${c.mock ? ' <span class="badge mock">mock</span>' : ''}</td>`,
      stat(c, 'recall', regressed),
      ...RECALL_CATEGORIES.map((cat) => stat(c, cat, regressed)),
      stat(c, 'staleRejection', regressed),
      stat(c, 'provenance', regressed),
      `<td class="num${regressed.has('structuralErrors') ? ' regressed' : ''}">${c.structural.maxErrorsPerRun ?? '—'}</td>`,
      `<td class="num">${int(c.structural.warning)}</td>`,
      `<td class="num${regressed.has('failureRate') ? ' regressed' : ''}">${c.failures.count}/${c.failures.of}${c.fallbacks > 0 ? ` <span class="small">(${c.fallbacks} fallback)</span>` : ''}</td>`,
      `<td class="num">${c.recovery.of > 0 ? `${c.recovery.committed}/${c.recovery.of}` : '—'}</td>`,
      `<td class="num">${esc(usd(c.spend.costPerRun))}</td>`,
      `<td class="num">${int(c.spend.input + c.spend.output + c.spend.cacheRead + c.spend.cacheWrite)}</td>`,
      `<td class="num">${esc(ms(c.latency.p50))} / ${esc(ms(c.latency.p95))}</td>`,
    ];
    if (judge) tds.push(`<td class="num">${esc(pctStat(c.judge))}</td>`);
    return `<tr>${tds.join('')}</tr>`;
  });
  return `<div class="scroll"><table><thead><tr>${head.map((h) => `<th scope="col">${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table></div>`;
}

export function missesList(input: ReportInput): string {
  if (input.misses.length === 0) return '<p class="good">Every threshold of the spec is met.</p>';
  return `<ul class="misses">${input.misses.map((m) => `<li><span class="badge bad">✗</span> ${esc(m.words)}</li>`).join('')}</ul>`;
}

export function regressionsTable(input: ReportInput): string {
  const cmp = input.comparison;
  if (!cmp) return '<p class="small">No baseline given (<code>--baseline FILE</code>).</p>';
  const parts: string[] = [
    `<p>Baseline: <code>${esc(input.baselineFile ?? '(unnamed)')}</code>. A regression is a quality mean that fell by more than the spread over repeats (or 1 point), a metric no longer measurable, a new failure, or more structural errors.</p>`,
  ];
  if (cmp.regressions.length === 0) parts.push('<p class="good">No regression.</p>');
  else {
    const rows = cmp.regressions.map(
      (d) =>
        `<tr><td>${esc(d.strategy)}</td><td>${esc(d.model)}</td><td>${esc(d.trace ?? 'all traces')}</td><td>${esc(d.metric)}</td><td class="num">${esc(fmtValue(d.metric, d.baseline))}</td><td class="num">${esc(fmtValue(d.metric, d.current))}</td><td>${esc(d.words ?? '')}</td></tr>`,
    );
    parts.push(
      `<table><thead><tr><th>Strategy</th><th>Model</th><th>Trace</th><th>Metric</th><th>Baseline</th><th>Now</th><th>Why</th></tr></thead><tbody>${rows.join('')}</tbody></table>`,
    );
  }
  if (cmp.onlyCurrent.length > 0) parts.push(`<p class="small">New cells: ${cmp.onlyCurrent.map(esc).join(', ')}</p>`);
  if (cmp.onlyBaseline.length > 0)
    parts.push(`<p class="small">Cells gone since the baseline: ${cmp.onlyBaseline.map(esc).join(', ')}</p>`);
  return parts.join('');
}

function fmtValue(metric: string, v: number | null): string {
  if (metric === 'structuralErrors') return v === null ? '—' : String(v);
  if (metric === 'costUsd') return usd(v);
  if (metric === 'latencyP95') return ms(v);
  return pct(v);
}

/** One row per fact that some cell missed, most-missed first, with the cells that missed it. */
export function missedFacts(input: ReportInput): string {
  const facts = factIndex(input);
  const byFact = new Map<string, { total: number; cells: string[] }>();
  for (const c of overallCells(input.aggregate)) {
    for (const [key, n] of Object.entries(c.missed)) {
      const e = byFact.get(key) ?? { total: 0, cells: [] };
      e.total += n;
      e.cells.push(`${c.strategy} × ${c.model}${n > 1 ? ` (${n})` : ''}`);
      byFact.set(key, e);
    }
  }
  if (byFact.size === 0) return '<p class="small">No confirmed fact was missed by any scored run.</p>';
  const rows = [...byFact.entries()]
    .sort((a, b) => b[1].total - a[1].total)
    .map(([key, e]) => {
      const f = facts.get(key);
      const what = f
        ? `${esc(f.text)} <span class="small">(${esc(f.id)}, ${esc(f.category === 'stale' ? 'stale: asserted as current' : f.category.replace('_', ' '))})</span>`
        : esc(key);
      return `<tr><td class="num">${e.total}</td><td>${what}</td><td class="small">${e.cells.map(esc).join('; ')}</td></tr>`;
    });
  return `<table><thead><tr><th>Runs</th><th>Fact</th><th>Missed by (strategy × model, runs)</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

export function factsFilesList(input: ReportInput): string {
  const files = input.factsFiles ?? [];
  if (files.length === 0) return '<p class="small">No facts file: no quality scores.</p>';
  return `<ul>${files.map((f) => `<li><code>${esc(f.file)}</code> for <code>${esc(f.trace)}</code>: ${f.confirmed} confirmed fact${f.confirmed === 1 ? '' : 's'}${f.drafts > 0 ? `, ${f.drafts} unconfirmed draft${f.drafts === 1 ? '' : 's'} (not scored)` : ''}.${f.description ? ` <span class="small">${esc(f.description)}</span>` : ''}</li>`).join('')}</ul>`;
}
