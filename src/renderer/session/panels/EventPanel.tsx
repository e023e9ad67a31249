import { useSession } from '../context';
import { chars } from '../format';
import { useQuery, valueOf } from './useQuery';

/**
 * The raw event picked in the history, whole, as canonical JSON (text, never markup). Asked for
 * again at each change of the session (`revision`): a session read again from the start may hold
 * another event at the same place, and lines appended replace the events the last read ended with
 * (a response it closed, a compaction it ended as a fallback). The text shown stays until the new
 * one comes.
 */
export function EventPanel(): React.JSX.Element {
  const api = useSession((s) => s.api);
  const sessionId = useSession((s) => s.sessionId);
  const seq = useSession((s) => s.pickedRaw);
  const revision = useSession((s) => s.revision);
  const q = useQuery(seq === null ? null : `${seq}\u0000${revision}`, () => api.getEventText({ sessionId, seq: seq ?? 0 }));
  const e = valueOf(q);
  if (seq === null) return <p className="muted pad">Pick an event in the raw history to read it whole.</p>;
  if (q.state === 'error')
    return (
      <div className="notice error" role="alert">
        <strong>{q.error.code}</strong> {q.error.message}
      </div>
    );
  if (e === null || e.seq !== seq) return <p className="muted pad">Reading event {seq}…</p>;
  return (
    <div className="sv-event">
      <div className="muted small">
        event {e.seq} · {e.kind} · {e.file}:{e.line} · {chars(e.text.chars)}
        {e.text.truncated ? ' (cut: only the first part is shown)' : ''}
      </div>
      <pre className="sv-pre">{e.text.text}</pre>
    </div>
  );
}
