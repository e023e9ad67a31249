import { useSession } from '../context';
import { chars } from '../format';
import { useQuery } from './useQuery';

/** The raw event picked in the history, whole, as canonical JSON (text, never markup). */
export function EventPanel(): React.JSX.Element {
  const api = useSession((s) => s.api);
  const sessionId = useSession((s) => s.sessionId);
  const seq = useSession((s) => s.pickedRaw);
  const q = useQuery(seq === null ? null : `${seq}`, () => api.getEventText({ sessionId, seq: seq ?? 0 }));
  if (seq === null) return <p className="muted pad">Pick an event in the raw history to read it whole.</p>;
  if (q.state === 'error')
    return (
      <div className="notice error" role="alert">
        <strong>{q.error.code}</strong> {q.error.message}
      </div>
    );
  if (q.state !== 'ready') return <p className="muted pad">Reading event {seq}…</p>;
  const e = q.value;
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
