import type { CompactionDetail } from '../../../shared/api/contract';
import { CATEGORIES } from '../../../shared/forensics/categories';

type Survival = NonNullable<CompactionDetail['survival']>;

const LABEL: Record<(typeof CATEGORIES)[number], string> = {
  paths: 'file paths',
  commands: 'commands',
  identifiers: 'identifiers',
  urls: 'URLs',
  errors: 'error messages',
  numbers: 'numbers',
  constraints: 'user constraints',
  tasks: 'open tasks',
  decisions: 'decisions',
};

const pct = (r: number): string => `${Math.round(r * 100)} %`;

/**
 * What the compaction's summary, with the items it kept, preserved of the anchors of the items it
 * replaced (computed in the engine: src/shared/forensics/): a bar per category, and the anchors
 * lost, each a button that shows the item it was said in.
 */
export function SurvivalSection({ survival, onPick }: { survival: Survival; onPick: (seq: number) => void }): React.JSX.Element {
  const rows = CATEGORIES.filter((c) => survival.survival[c].total > 0);
  return (
    <section className="sv-survival" aria-label="Survival">
      <h3>Survival</h3>
      <p className="muted small">
        Of the anchors in the {survival.replaced} items it replaced, what the summary and the {survival.kept} items it kept still hold:
        verbatim, or normalised (a shortened path, a reformatted number, a restated sentence). Deterministic; no model.
        {survival.opaque && ' Part of the summary is encrypted: only the kept items were searched.'}
      </p>
      {rows.length === 0 ? (
        <p className="muted">The replaced items hold no anchor of any category.</p>
      ) : (
        <table className="sv-survival-table">
          <tbody>
            {rows.map((c) => {
              const r = survival.survival[c];
              const rate = r.rate ?? 0;
              return (
                <tr key={c} data-category={c}>
                  <th scope="row">{LABEL[c]}</th>
                  <td className="sv-survival-bar-cell">
                    <span
                      className="sv-survival-bar"
                      role="meter"
                      aria-valuemin={0}
                      aria-valuemax={100}
                      aria-valuenow={Math.round(rate * 100)}
                      aria-label={`${LABEL[c]} kept`}
                    >
                      <span className="sv-survival-fill" style={{ width: `${rate * 100}%` }} />
                    </span>
                  </td>
                  <td className="small">
                    {pct(rate)} · {r.verbatim + r.normalised} of {r.total} ({r.verbatim} verbatim, {r.normalised} normalised), {r.lost} lost
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {survival.lostTotal > 0 && (
        <details className="sv-survival-lost">
          <summary>
            {survival.lostTotal} anchor{survival.lostTotal === 1 ? '' : 's'} lost
            {survival.lost.length < survival.lostTotal ? ` (the first ${survival.lost.length} shown)` : ''}
          </summary>
          <ul className="sv-list">
            {survival.lost.map((a, i) => (
              <li key={`${a.category}-${a.seq}-${i}`} data-category={a.category}>
                <span className="muted small">{LABEL[a.category]}</span> <code>{a.text}</code>{' '}
                <button type="button" className="link" onClick={() => onPick(a.seq)}>
                  seq {a.seq}
                </button>
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}
