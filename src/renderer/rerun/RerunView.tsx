import { useEffect, useMemo, useRef } from 'react';
import { CompareView } from '../compare/CompareView';
import { useApp } from '../useApp';
import { RerunContext, useRerun } from './context';
import { JobList } from './JobList';
import { rerunStoreFor, takeFocus } from './registry';
import { RerunForm } from './RerunForm';
import { RunsList } from './RunsList';
import './rerun.css';

/**
 * Re-run & compare for one open session (docs/rerun.md): the re-run panel (target, strategy, model
 * chain, window, repeat; Run; streamed progress; Cancel) on the left, the session's runs and the
 * comparison with the original on the right. Mounted by the app shell beside the inspector.
 */

function Body({ sessionId }: { sessionId: string }): React.JSX.Element {
  const phase = useRerun((s) => s.phase);
  const error = useRerun((s) => s.error);
  const comparison = useRerun((s) => s.comparison);
  const compareError = useRerun((s) => s.compareError);
  const kind = useRerun((s) => s.form.targetKind);
  const left = useRef<HTMLElement>(null);
  // Opened by the inspector's "Re-run this…" button, which is gone now: the focus goes to the
  // target it was opened on, so the keyboard user is where the work continues.
  useEffect(() => {
    if (phase === 'ready' && takeFocus(sessionId)) left.current?.querySelector<HTMLElement>(`[data-rr-target="${kind}"]`)?.focus();
  }, [phase, sessionId, kind]);
  if (phase === 'loading')
    return (
      <div className="notice" role="status">
        Loading strategies and runs…
      </div>
    );
  if (phase === 'error') {
    return (
      <div className="notice error" role="alert">
        <strong>{error?.code ?? 'ERROR'}</strong> {error?.message ?? 'The re-run panel could not load.'}
      </div>
    );
  }
  return (
    <div className="rr-view">
      <section className="rr-left" aria-label="Re-run" ref={left}>
        <RerunForm />
        <JobList />
      </section>
      <section className="rr-right" aria-label="Runs and comparison">
        <RunsList />
        {compareError && (
          <p className="rr-error" role="alert">
            {compareError.code}: {compareError.message}
          </p>
        )}
        {comparison && <CompareView result={comparison} />}
      </section>
    </div>
  );
}

export function RerunView({ sessionId }: { sessionId: string }): React.JSX.Element {
  const api = useApp((s) => s.api);
  const store = useMemo(() => rerunStoreFor(api, sessionId), [api, sessionId]);
  return (
    <RerunContext.Provider value={store}>
      <Body sessionId={sessionId} />
    </RerunContext.Provider>
  );
}
