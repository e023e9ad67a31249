import type { MatrixCell } from '../../../shared/eval/aggregate';
import { escapeMarkdown as md, int, ms, pctStat, usd } from './format';
import { factIndex, missesOf, NOT_PROVEN, overallCells, regressionsOf, verdict, type ReportInput } from './input';

/*
 * The pull-request summary: one table (strategy × model, over all traces) with recall, stale-fact
 * rejection, provenance, structural errors, failures, cost and p95 latency; then the threshold
 * misses and baseline regressions in words. ❌ marks a cell that missed a threshold, ▼ a metric
 * that regressed. Every label and fact text is escaped: a trace cannot inject Markdown or HTML.
 */

const MAX_LISTED = 20;

function row(input: ReportInput, c: MatrixCell, judge: boolean): string {
  const regressed = new Set<string>(regressionsOf(input, c).map((d) => d.metric));
  const mark = (metric: string, text: string): string => (regressed.has(metric) ? `${text} ▼` : text);
  const missed = missesOf(input, c).length > 0;
  const cells = [
    `${missed ? '❌ ' : ''}${md(c.strategy)}`,
    `${md(c.model)}${c.mock ? ' (mock)' : ''}`,
    mark('recall', pctStat(c.quality.recall)),
    mark('staleRejection', pctStat(c.quality.staleRejection)),
    mark('provenance', pctStat(c.quality.provenance)),
    mark(
      'structuralErrors',
      c.structural.maxErrorsPerRun === null
        ? '—'
        : `${c.structural.maxErrorsPerRun}${c.structural.warning > 0 ? ` (${int(c.structural.warning)} warn.)` : ''}`,
    ),
    mark(
      'failureRate',
      `${c.failures.count}/${c.failures.of}${c.recovery.of > 0 ? `; recovered ${c.recovery.committed}/${c.recovery.of}` : ''}`,
    ),
    usd(c.spend.costPerRun),
    ms(c.latency.p95),
  ];
  if (judge) cells.push(pctStat(c.judge));
  return `| ${cells.join(' | ')} |`;
}

export function reportMarkdown(input: ReportInput): string {
  const v = verdict(input);
  const cells = overallCells(input.aggregate);
  const judge = cells.some((c) => c.judge !== null);
  const out: string[] = [];
  out.push(`## Eval: ${md(input.spec.name)} — ${v.ok ? '✅' : '❌'} ${v.text}`, '');
  const meta = [
    `${int(input.aggregate.runs)} runs`,
    `${input.aggregate.traces.length} trace${input.aggregate.traces.length === 1 ? '' : 's'}`,
  ];
  if (input.shard) meta.push(`shard ${input.shard.k}/${input.shard.n} (partial: merge the shards' results for the whole matrix)`);
  out.push(meta.join(' · '), '');
  if (input.stopped) out.push(`> **Stopped early:** ${md(input.stopped)}`, '');
  if (cells.some((c) => c.mock))
    out.push(
      '> Cells marked (mock) ran against the mock provider: scripted replies, not a model. Their scores test the pipeline, not model quality.',
      '',
    );

  const head = [
    'Strategy',
    'Model',
    'Recall',
    'Stale rejection',
    'Provenance',
    'Structural errors (worst run)',
    'Failures',
    'Cost / run',
    'p95 latency',
  ];
  if (judge) head.push('Judge (not ground truth)');
  out.push(`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`);
  for (const c of cells) out.push(row(input, c, judge));
  out.push(
    '',
    'Recall: share of confirmed facts (constraints, decisions, open work, evidence) found in what the agent would see, mean ± stddev over repeats; — = not measured. Definitions: docs/eval.md.',
    '',
  );

  if (input.misses.length > 0) {
    out.push('### Threshold misses', '');
    for (const m of input.misses.slice(0, MAX_LISTED)) out.push(`- ❌ ${md(m.words)}`);
    if (input.misses.length > MAX_LISTED) out.push(`- … and ${input.misses.length - MAX_LISTED} more (see the JSON report)`);
    out.push('');
  }
  if (input.comparison) {
    const regs = input.comparison.regressions.filter((d) => d.trace === null);
    out.push(`### Against the baseline${input.baselineFile ? ` (${md(input.baselineFile)})` : ''}`, '');
    if (regs.length === 0) out.push('No regression.');
    for (const d of regs.slice(0, MAX_LISTED)) out.push(`- ▼ ${md(d.words ?? '')}`);
    const perTrace = input.comparison.regressions.length - regs.length;
    if (perTrace > 0) out.push(`- ${perTrace} per-trace regression${perTrace === 1 ? '' : 's'} (see the HTML or JSON report)`);
    if (input.comparison.onlyCurrent.length > 0) out.push(`- New cells: ${input.comparison.onlyCurrent.map(md).join(', ')}`);
    if (input.comparison.onlyBaseline.length > 0)
      out.push(`- Cells gone since the baseline: ${input.comparison.onlyBaseline.map(md).join(', ')}`);
    out.push('');
  }
  const facts = factIndex(input);
  const lost = new Map<string, number>();
  for (const c of cells) for (const [k, n] of Object.entries(c.missed)) lost.set(k, (lost.get(k) ?? 0) + n);
  if (lost.size > 0) {
    out.push('<details><summary>Facts most often missed</summary>', '');
    for (const [k, n] of [...lost.entries()].sort((a, b) => b[1] - a[1]).slice(0, MAX_LISTED)) {
      const f = facts.get(k);
      const how = f?.category === 'stale' ? 'stale, asserted as current' : f?.category.replace('_', ' ');
      out.push(`- ${n}× ${f ? `**${md(f.id)}** (${how}): ${md(f.text)}` : md(k)}`);
    }
    out.push('', '</details>', '');
  }
  for (const n of input.notes ?? []) out.push(`> ${md(n)}`, '');
  out.push(`<sub>${NOT_PROVEN[0]} ${NOT_PROVEN[1]}</sub>`);
  return `${out.join('\n')}\n`;
}
