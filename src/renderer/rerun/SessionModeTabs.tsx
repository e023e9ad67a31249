import { useEffect, useRef } from 'react';
import { useApp } from '../useApp';
import { keepOnly, setMode, useSessionMode, type SessionMode } from './registry';
import './rerun.css';

/**
 * The two views of an open session: the inspector (UI-2's) and re-run & compare. A "go to" from
 * search shows the inspector, since that is where a request or an event can be shown.
 */

const MODES: readonly { readonly id: SessionMode; readonly label: string }[] = [
  { id: 'inspect', label: 'Inspect' },
  { id: 'rerun', label: 'Re-run & compare' },
];

export function SessionModeTabs({ sessionId }: { sessionId: string }): React.JSX.Element {
  const mode = useSessionMode(sessionId);
  const nonce = useApp((s) => s.focus?.nonce ?? null);
  const open = useApp((s) => s.tabs);
  const seen = useRef(nonce);

  useEffect(() => {
    if (nonce === seen.current) return;
    seen.current = nonce;
    if (nonce !== null) setMode(sessionId, 'inspect');
  }, [nonce, sessionId]);

  useEffect(() => {
    keepOnly(open.map((t) => t.sessionId));
  }, [open]);

  return (
    <div className="rr-modes" role="tablist" aria-label="Session view">
      {MODES.map((m) => (
        <button
          key={m.id}
          type="button"
          role="tab"
          id={`mode-${m.id}`}
          aria-selected={mode === m.id}
          className={mode === m.id ? 'active' : ''}
          onClick={() => setMode(sessionId, m.id)}
        >
          {m.label}
        </button>
      ))}
    </div>
  );
}
