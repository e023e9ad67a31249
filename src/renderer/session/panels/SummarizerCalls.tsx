import type { CompactionDetail } from '../../../shared/api/contract';
import { chars, num } from '../format';

/** The summarizer calls of a compaction: what each received (instruction, input items) and how it ended. */
export function SummarizerCalls({ d, onSelect }: { d: CompactionDetail; onSelect: (index: number) => void }): React.JSX.Element {
  if (d.summarizer.length === 0) return <p className="muted">No summarizer call in the log.</p>;
  return (
    <>
      <h3>
        Summarizer calls ({d.summarizer.length} attempt{d.summarizer.length === 1 ? '' : 's'})
      </h3>
      <table className="sv-table">
        <thead>
          <tr>
            <th>call</th>
            <th>purpose</th>
            <th>model</th>
            <th>window / max out</th>
            <th>received</th>
            <th>finish</th>
            <th>usage in/out</th>
            <th>error</th>
          </tr>
        </thead>
        <tbody>
          {d.summarizer.map((c) => (
            <tr key={c.id} className={c.error || (c.finish && c.finish.reason !== 'stop') ? 'sv-bad' : ''}>
              <td>
                {c.index !== null ? (
                  <button type="button" className="link" onClick={() => onSelect(c.index ?? 0)} title="open the view this call sent">
                    {c.id} (#{c.index})
                  </button>
                ) : (
                  `${c.id} (branch ${c.branch})`
                )}
              </td>
              <td>{c.purpose}</td>
              <td>
                {c.provider ?? '?'}/{c.model ?? '?'}
              </td>
              <td>
                {num(c.window)} / {num(c.maxOutput)}
              </td>
              <td>
                {c.inputItems !== null ? `${c.inputItems} items` : 'the surface'}
                {c.instructionUnknown ? ', instruction not logged' : c.instruction ? `, instruction ${chars(c.instruction.chars)}` : ''}
              </td>
              <td>{c.finish ? `${c.finish.raw} (${c.finish.reason})` : 'not recorded'}</td>
              <td>{c.usage ? `${num(c.usage.input)} / ${num(c.usage.output)}` : '—'}</td>
              <td className="sev-error">{c.error ? `${c.error.code ?? ''} ${c.error.message}` : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {d.summarizer
        .filter((c) => c.instruction)
        .map((c) => (
          <details key={`i-${c.id}`}>
            <summary>instruction sent by {c.id}</summary>
            <pre className="sv-pre">{c.instruction?.text}</pre>
          </details>
        ))}
    </>
  );
}
