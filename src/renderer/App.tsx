import { useEffect } from 'react';
import { Header } from './components/Header';
import { ModelViewPane } from './components/ModelViewPane';
import { RawHistory } from './components/RawHistory';
import { RequestList } from './components/RequestList';
import { useApp } from './useApp';

function isTyping(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'SELECT', 'TEXTAREA'].includes(target.tagName));
}

export function App(): React.JSX.Element {
  const phase = useApp((s) => s.phase);
  const error = useApp((s) => s.error);
  const start = useApp((s) => s.start);
  const step = useApp((s) => s.step);

  useEffect(() => {
    void start();
  }, [start]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.altKey || e.ctrlKey || e.metaKey || isTyping(e.target)) return;
      if (e.key === 'ArrowDown' || e.key === 'j') step(1);
      else if (e.key === 'ArrowUp' || e.key === 'k') step(-1);
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [step]);

  return (
    <div className="app">
      <Header />
      {phase === 'starting' || phase === 'opening' ? (
        <div className="notice" role="status">{phase === 'starting' ? 'Connecting…' : 'Loading the session…'}</div>
      ) : phase === 'empty' ? (
        <div className="notice">
          No session was given. Start Palimpsest with a session file: <code>palimpsest serve path/to/session.jsonl</code>.
        </div>
      ) : phase === 'error' ? (
        <div className="notice error" role="alert">
          <strong>{error?.code ?? 'ERROR'}</strong> {error?.message ?? 'Something went wrong.'}
        </div>
      ) : (
        <main className="panes">
          <RequestList />
          <ModelViewPane />
          <RawHistory />
        </main>
      )}
    </div>
  );
}
