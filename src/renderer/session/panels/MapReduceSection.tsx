import type { MapReduceDetail } from '../../../shared/api/contract';
import { CoverageChart } from './CoverageChart';
import { ReductionTree } from './ReductionTree';
import { TextDiffView } from './TextDiffView';

/** Everything the log records of a MapReduce compaction (cosh), each row linked to its event. */
export function MapReduceSection({ mr, onPick }: { mr: MapReduceDetail; onPick: (seq: number) => void }): React.JSX.Element {
  const seq = (s: number): React.JSX.Element => (
    <button type="button" className="link" onClick={() => onPick(s)}>
      {s}
    </button>
  );
  const finalOut = [...mr.reductions].reverse().find((r) => r.final)?.output ?? null;
  const lastCorrection = [...mr.corrections].reverse().find((c) => c.output !== null)?.output ?? null;
  return (
    <section className="sv-mapreduce" aria-label="MapReduce">
      <h3>MapReduce coverage</h3>
      <CoverageChart coverage={mr.coverage} />
      <h3>Stagings</h3>
      <ul className="sv-list">
        {mr.stagings.map((s) => (
          <li key={s.seq}>
            seq {seq(s.seq)} · version {s.version ?? 'legacy (unversioned)'} · {s.fingerprint} · {s.segments.length} segments
          </li>
        ))}
        {mr.repartitions.map((r) => (
          <li key={r.seq}>
            seq {seq(r.seq)} · repartition {r.attempt}
            {r.replaces ? ` of ${r.replaces.join(', ')}` : ''} → segments {r.segments.map((x) => x.ordinal).join(', ')}
          </li>
        ))}
      </ul>
      <h3>Maps</h3>
      <table className="sv-table">
        <thead>
          <tr>
            <th>seq</th>
            <th>segment</th>
            <th>status</th>
            <th>request</th>
            <th>finish</th>
            <th>usage in/out</th>
            <th>summary</th>
          </tr>
        </thead>
        <tbody>
          {mr.maps.map((m) => (
            <tr key={m.seq} className={`status-${m.status}`}>
              <td>{seq(m.seq)}</td>
              <td>{m.ordinal}</td>
              <td>{m.status}</td>
              <td>{m.request ?? '—'}</td>
              <td>{m.finish?.raw ?? '—'}</td>
              <td>{m.usage ? `${m.usage.input ?? '?'} / ${m.usage.output ?? '?'}` : '—'}</td>
              <td className="sv-cell-text">{m.summary?.text ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>Reduction tree</h3>
      <ReductionTree mr={mr} />
      <h3>Rereads, audits, corrections</h3>
      <ul className="sv-list">
        {mr.rereads.map((r) => (
          <li key={r.seq}>
            seq {seq(r.seq)} · reread {r.ranges.map((x) => `${x.from}–${x.to}`).join(', ')} ·{' '}
            <span className={r.status === 'served' ? '' : 'sev-warning'}>{r.status}</span>
            {r.reduction ? ` · for L${r.reduction.level}#${r.reduction.index}` : ''}
          </li>
        ))}
        {mr.audits.map((a) => (
          <li key={a.seq}>
            seq {seq(a.seq)} · audit <span className={a.verdict === 'fail' ? 'sev-error' : ''}>{a.verdict}</span>
            {a.issues.length > 0 ? `: ${a.issues.join('; ')}` : ''}
          </li>
        ))}
        {mr.corrections.map((c) => (
          <li key={c.seq}>
            seq {seq(c.seq)} · correction {c.n} · {c.accepted ? 'accepted' : 'rejected'}
          </li>
        ))}
      </ul>
      {finalOut && lastCorrection && (
        <details>
          <summary>final reduction → last correction (text diff)</summary>
          <TextDiffView before={finalOut.text} after={lastCorrection.text} beforeLabel="final reduction" afterLabel="correction" />
        </details>
      )}
    </section>
  );
}
