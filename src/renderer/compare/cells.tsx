import type { CompareRow } from '../../shared/api/contract';
import { pct } from './format';

/** Cells of the compare table that hold more than a number: diagnostics, recall of one anchor kind, a section. */

export function DiagnosticsCell({ row }: { row: CompareRow }): React.JSX.Element {
  const { error, warning, info } = row.severities;
  const list = row.subject.diagnostics;
  const counts = (
    <>
      <span className={error > 0 ? 'sev-error' : ''}>
        {error} error{error === 1 ? '' : 's'}
      </span>{' '}
      ·{' '}
      <span className={warning > 0 ? 'sev-warning' : ''}>
        {warning} warning{warning === 1 ? '' : 's'}
      </span>{' '}
      · {info} info
    </>
  );
  if (list.length === 0) return <td>{counts}</td>;
  return (
    <td>
      <details>
        <summary>{counts}</summary>
        <ul className="cmp-list">
          {list.map((d, i) => (
            <li key={i}>
              <span className={`sev-${d.severity}`}>{d.rule}</span> {d.message}
            </li>
          ))}
        </ul>
      </details>
    </td>
  );
}

type Survival = CompareRow['survival'][number];

export function RecallCell({ s, label }: { s: Survival | undefined; label: string }): React.JSX.Element {
  if (!s || s.total === 0) return <td className="muted">none in the source</td>;
  const text = `${s.kept}/${s.total} (${pct(s.recall)})`;
  if (s.lost.length === 0) return <td className="cmp-good">{text}</td>;
  const more = s.total - s.kept - s.lost.length;
  return (
    <td>
      <details>
        <summary title={label}>
          {text} · {s.total - s.kept} lost
        </summary>
        <ul className="cmp-list cmp-lost">
          {s.lost.map((a) => (
            <li key={a}>
              <code>{a}</code>
            </li>
          ))}
          {more > 0 && <li className="muted">and {more} more</li>}
        </ul>
      </details>
    </td>
  );
}

export function SectionCell({ row, name }: { row: CompareRow; name: string }): React.JSX.Element {
  if (row.subject.summary === null) return <td className="muted">no summary</td>;
  const s = row.sections.find((x) => x.name === name);
  if (!s?.present)
    return (
      <td className="cmp-missing" title="missing">
        ✗
      </td>
    );
  if (s.empty)
    return (
      <td className="cmp-empty" title="present but empty">
        empty
      </td>
    );
  return (
    <td className="cmp-good" title="present">
      ✓
    </td>
  );
}
