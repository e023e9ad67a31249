import { blocksPreview } from '../preview';
import { RerunRequestButton } from '../rerun/RerunButtons';
import { useSession } from './context';
import { chars, num } from './format';

/** The request and the envelope the model saw with it: system prompt, tools, what the log does not say. */
export function ViewHeadBox(): React.JSX.Element | null {
  const head = useSession((s) => s.head);
  const pickRaw = useSession((s) => s.pickRaw);
  const setTab = useSession((s) => s.setTab);
  const sessionId = useSession((s) => s.sessionId);
  const branch = useSession((s) => s.branch);
  if (!head) return null;
  const r = head.request;
  const system = head.system === null ? null : blocksPreview(head.system, 300);
  const systemSeq = head.headerSeqs[0];
  return (
    <div className="view-head">
      <div>
        <strong>
          #{r.index} {r.id}
        </strong>{' '}
        at seq {r.seq} · {r.purpose}
        {r.compactionId ? ` for ${r.compactionId}` : ''} · {r.provider ?? 'unknown provider'}/{r.model ?? 'unknown model'} · window{' '}
        {num(r.window)} <RerunRequestButton sessionId={sessionId} branch={branch} index={r.index} />
      </div>
      <div>
        reported input {num(r.reportedInputTokens)} tokens · output {num(r.outputTokens)} · finish{' '}
        {r.finish ? `${r.finish.raw} (${r.finish.reason})` : r.responseSeq === null ? 'unknown (no response in the log)' : 'not recorded'}
        {r.error && (
          <span className="sev-error">
            {' '}
            · error {r.error.code ?? ''} {r.error.message}
          </span>
        )}
      </div>
      <div className="system">
        <span className="label">system</span>{' '}
        {system === null ? (
          <span className="unknown">unknown: the log does not record it</span>
        ) : (
          system.text || <span className="muted">(empty)</span>
        )}
        {system !== null && head.systemChars > 300 && systemSeq !== undefined && (
          <button
            type="button"
            className="link"
            onClick={() => {
              void pickRaw(systemSeq);
              setTab('event');
            }}
          >
            {' '}
            whole ({chars(head.systemChars)})
          </button>
        )}
      </div>
      <div>
        <span className="label">tools</span>{' '}
        {head.tools === null ? (
          <span className="unknown">unknown: the log does not record them</span>
        ) : (
          head.tools.map((t) => t.name).join(', ') || <span className="muted">(none)</span>
        )}
      </div>
      {head.unknowns.length > 0 && (
        <ul className="unknowns" aria-label="Not known from the log">
          {head.unknowns.map((u) => (
            <li key={u}>unknown: {u}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
