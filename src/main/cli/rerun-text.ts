import type { Comparison } from '../../shared/compare/compare';
import { ANCHOR_KINDS } from '../../shared/compare/verbatim';
import type { RunRecord, SourceIdentity } from '../../shared/rerun/record';
import { grouped } from '../../shared/grouped';

/* Plain-text renderings of re-runs and comparisons for the terminal. */

const n = (x: number | null | undefined): string => (x === null || x === undefined ? '?' : grouped(x));
const usd = (x: number | null): string => (x === null ? 'cost unknown (no prices pinned)' : `$${x.toFixed(4)}`);
const pct = (x: number | null): string => (x === null ? '—' : `${(x * 100).toFixed(0)}%`);

function targetText(r: RunRecord): string {
  return 'compaction' in r.target ? `compaction ${r.target.compaction}` : `request ${r.target.request}`;
}

function models(r: RunRecord): string {
  return r.models.length === 0
    ? 'no model'
    : r.models.map((m) => String(m.label ?? `${String(m.provider)}:${String(m.model)}`)).join(' → ');
}

export function renderRun(r: RunRecord): string {
  const lines: string[] = [];
  lines.push(
    `run ${r.runId}  ${r.strategy} on ${targetText(r)}  [${r.repeat.index + 1}/${r.repeat.of}]${r.mock ? "  MOCK: answers are not a model's" : ''}`,
  );
  lines.push(`  outcome   ${r.outcome.toUpperCase()}${r.error ? `: ${r.error}` : ''}`);
  lines.push(`  models    ${models(r)}`);
  lines.push(`  tokens    ${n(r.tokens.before)} → ${n(r.tokens.after)} of window ${n(r.budget.window)} (${r.tokens.counter})`);
  lines.push(
    `  requests  ${r.totals.requests}  input ${n(r.totals.input)}  output ${n(r.totals.output)}  cache read ${n(r.totals.cacheRead)}  ${usd(r.totals.costUsd)}  latency ${Math.round(r.totals.latencyMs)} ms (wall ${Math.round(r.totals.wallMs)} ms)`,
  );
  for (const c of r.calls) {
    lines.push(
      `    ${c.stage.padEnd(12)} ${c.label.padEnd(16)} ${c.model}  ${c.ok ? 'ok' : `FAILED ${c.error?.kind ?? ''}: ${c.error?.message ?? ''}`}  finish ${c.finish ? `${c.finish.raw} (${c.finish.reason})` : 'none'}  attempts ${c.attempts}`,
    );
  }
  for (const note of r.notes) lines.push(`  note      ${note}`);
  const worst = r.diagnostics.filter((d) => d.severity === 'error' || d.severity === 'warning');
  lines.push(
    `  diagnostics ${r.diagnostics.length === 0 ? 'none' : `${worst.length} error/warning, ${r.diagnostics.length - worst.length} other`}`,
  );
  for (const d of worst) lines.push(`    ${d.severity} ${d.rule}: ${d.message}`);
  if (r.summary !== null) {
    lines.push('  summary ─────────────────────────────────────────────');
    for (const l of r.summary.split('\n')) lines.push(`  │ ${l}`);
  }
  return lines.join('\n');
}

export function renderRunList(file: string, runs: readonly RunRecord[], identity: SourceIdentity): string {
  if (runs.length === 0) return `No runs of this session in ${file}.`;
  const lines = [`${runs.length} run(s) in ${file}`];
  for (const r of runs) {
    const stale = r.source.fingerprint !== identity.fingerprint ? '  (session changed since)' : '';
    lines.push(
      `${r.at}  ${r.runId.slice(0, 8)}  ${targetText(r).padEnd(28)} ${r.strategy.padEnd(12)} ${models(r).padEnd(32)} ${r.outcome.padEnd(9)} ${n(r.tokens.before)} → ${n(r.tokens.after)}${r.mock ? '  [mock]' : ''}${r.captures.length > 0 ? '  [joined with capture]' : ''}${stale}`,
    );
  }
  return lines.join('\n');
}

export function renderComparison(c: Comparison): string {
  const lines: string[] = [];
  const a = c.anchors;
  lines.push(`Source anchors: ${ANCHOR_KINDS.map((k) => `${a[k].length} ${k}`).join(', ')}`);
  for (const row of c.rows) {
    const s = row.subject;
    lines.push('');
    lines.push(`${s.label}  ${s.outcome.toUpperCase()}`);
    lines.push(
      `  tokens   ${n(s.tokensBefore)} → ${n(s.tokensAfter)}   requests ${n(s.requests)}   ${s.costUsd === null ? '' : usd(s.costUsd)}`,
    );
    lines.push(`  verbatim recall ${pct(row.recall)}  (${row.survival.map((x) => `${x.kind} ${x.kept}/${x.total}`).join(', ')})`);
    if (row.sections.length > 0) {
      const present = row.sections.filter((x) => x.present && !x.empty).length;
      lines.push(
        `  sections ${present}/${row.sections.length}${
          row.sections.some((x) => !x.present)
            ? `  missing: ${row.sections
                .filter((x) => !x.present)
                .map((x) => x.name)
                .join(', ')}`
            : ''
        }`,
      );
    }
    lines.push(`  diagnostics ${row.severities.error} error, ${row.severities.warning} warning, ${row.severities.info} info`);
    const lost = row.survival.flatMap((x) => x.lost.slice(0, 5).map((l) => `${x.kind}: ${l}`));
    if (lost.length > 0) lines.push(`  lost (first): ${lost.slice(0, 10).join(' | ')}`);
    if (row.diff) {
      const added = row.diff.filter((d) => d.op === 'added').reduce((k, d) => k + d.text.split('\n').length - 1, 0);
      const removed = row.diff.filter((d) => d.op === 'removed').reduce((k, d) => k + d.text.split('\n').length - 1, 0);
      lines.push(`  summary diff vs ${c.rows[0]?.subject.label ?? 'first'}: +${added} −${removed} lines`);
    }
  }
  return lines.join('\n');
}
