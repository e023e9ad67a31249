import type { ApiOutput, CompareRow } from '../../shared/api/contract';
import { CATEGORIES } from '../../shared/forensics/categories';
import { ms, num, pct, usd } from './format';
import { DiagnosticsCell, RecallCell, SectionCell } from './cells';
import { SummaryDiff } from './SummaryDiff';

/**
 * The original compaction (first column, when the target is one) beside one or more re-runs of it:
 * outcome, tokens before → after, requests, cost and latency, diagnostics, verbatim recall per
 * anchor kind with the lost anchors listable, handoff sections present, and each summary's text
 * diff against the original. Everything here was computed in main; this only lays it out, as text.
 */

export type CompareResult = ApiOutput<'compareRuns'>;

// The categories of compaction forensics, as the engine measured them.
const KINDS = CATEGORIES;
const KIND_LABEL: Record<(typeof KINDS)[number], string> = {
  paths: 'paths',
  commands: 'commands',
  identifiers: 'identifiers',
  urls: 'URLs',
  errors: 'error strings',
  numbers: 'numbers',
  constraints: 'constraints',
  tasks: 'open tasks',
  decisions: 'decisions',
};

function Metric({
  label,
  rows,
  cell,
}: {
  label: string;
  rows: readonly CompareRow[];
  cell: (r: CompareRow) => React.ReactNode;
}): React.JSX.Element {
  return (
    <tr>
      <th scope="row">{label}</th>
      {rows.map((r) => (
        <td key={r.subject.id}>{cell(r)}</td>
      ))}
    </tr>
  );
}

function SummaryText({ row }: { row: CompareRow }): React.JSX.Element {
  if (row.subject.summary === null) return <td className="muted">no summary</td>;
  return (
    <td>
      <details>
        <summary>{num(row.subject.summary.length)} characters</summary>
        <pre className="cmp-summary">{row.subject.summary}</pre>
      </details>
    </td>
  );
}

export function CompareView({ result }: { result: CompareResult }): React.JSX.Element {
  const { comparison, stale, note, missing } = result;
  const rows = comparison.rows;
  const sectionNames = rows.find((r) => r.sections.length > 0)?.sections.map((s) => s.name) ?? [];
  const anchors = comparison.anchors;
  return (
    <section className="cmp" aria-label="Comparison">
      <h3>Comparison</h3>
      {note && (
        <p className="rr-note" role="note">
          {note}
        </p>
      )}
      {missing.length > 0 && <p className="rr-note">Not found for this target: {missing.join(', ')}</p>}
      <p className="muted small">
        Anchors of the source: {KINDS.map((k) => `${anchors[k].length} ${KIND_LABEL[k]}`).join(', ')}. Recall counts those that survive
        (verbatim, or normalised: a shortened path, a reformatted number, a restated sentence) in what the agent would see after — a
        deterministic measure, not a judgement of quality.
      </p>
      {rows.length > 0 && (
        <div className="cmp-scroll">
          <table className="cmp-table">
            <thead>
              <tr>
                <th scope="col">
                  <span className="sr-only">measure</span>
                </th>
                {rows.map((r) => (
                  <th key={r.subject.id} scope="col" data-subject={r.subject.id}>
                    {r.subject.label}
                    {stale.includes(r.subject.id) && <span className="tag rr-stale">session changed since</span>}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              <Metric
                label="outcome"
                rows={rows}
                cell={(r) => <span className={`rr-outcome outcome-${r.subject.outcome}`}>{r.subject.outcome}</span>}
              />
              <Metric
                label="tokens before → after"
                rows={rows}
                cell={(r) => `${num(r.subject.tokensBefore)} → ${num(r.subject.tokensAfter)}`}
              />
              <Metric label="requests" rows={rows} cell={(r) => num(r.subject.requests)} />
              <Metric label="cost" rows={rows} cell={(r) => usd(r.subject.costUsd)} />
              <Metric label="latency" rows={rows} cell={(r) => ms(r.subject.latencyMs)} />
              <tr>
                <th scope="row">diagnostics</th>
                {rows.map((r) => (
                  <DiagnosticsCell key={r.subject.id} row={r} />
                ))}
              </tr>
              <Metric label="verbatim recall" rows={rows} cell={(r) => <strong>{pct(r.recall)}</strong>} />
              {KINDS.map((k) => (
                <tr key={k} className="cmp-kind">
                  <th scope="row">· {KIND_LABEL[k]}</th>
                  {rows.map((r) => (
                    <RecallCell key={r.subject.id} s={r.survival.find((s) => s.kind === k)} label={`${r.subject.label} ${KIND_LABEL[k]}`} />
                  ))}
                </tr>
              ))}
              {sectionNames.map((name) => (
                <tr key={name} className="cmp-section">
                  <th scope="row">§ {name}</th>
                  {rows.map((r) => (
                    <SectionCell key={r.subject.id} row={r} name={name} />
                  ))}
                </tr>
              ))}
              <tr>
                <th scope="row">summary</th>
                {rows.map((r) => (
                  <SummaryText key={r.subject.id} row={r} />
                ))}
              </tr>
            </tbody>
          </table>
        </div>
      )}
      {rows.map((r) => (r.diff ? <SummaryDiff key={r.subject.id} label={r.subject.label} parts={r.diff} /> : null))}
    </section>
  );
}
