import { useContext, useEffect, useLayoutEffect, useMemo, useRef } from 'react';
import { SessionApiContext, SessionContext } from './context';
import { actionFor, isTyping } from './keys';
import { SessionLayout } from './SessionLayout';
import { useShellApi, useShellChange, useShellFocus, useShellSummary, type ShellFocus } from './shell';
import { createSessionStore, type SessionStore } from './store';
import './session.css';

/**
 * The inspector for one open session (docs/session-view.md): a timeline of requests with compaction
 * and diagnostic markers, the model view at the selected request beside the raw history (aligned
 * both ways), and panels for tokens, compaction detail, diffs and diagnostics. Mounted by the app
 * shell for the active session; keys are listed in ./keys.ts (press ? in the view).
 */
export interface SessionViewProps {
  readonly sessionId: string;
}

function applyKey(store: SessionStore, e: KeyboardEvent): void {
  if (e.defaultPrevented || isTyping(e.target)) return;
  const action = actionFor(e);
  if (!action) return;
  const s = store.getState();
  switch (action.type) {
    case 'request':
      s.step(action.delta);
      break;
    case 'edge':
      s.edge(action.to);
      break;
    case 'marker':
      s.jumpMarker(action.kind, action.dir);
      break;
    case 'clear':
      s.clearPick();
      break;
    case 'help':
      s.toggleKeys();
      break;
    case 'export':
      s.toggleExport();
      break;
  }
  e.preventDefault();
}

function applyFocus(store: SessionStore, f: ShellFocus): void {
  const s = store.getState();
  if (f.seq !== undefined) void s.jumpToSeq(f.seq, f.request);
  else if (f.request !== undefined) void s.select(f.request);
}

export function SessionView({ sessionId }: SessionViewProps): React.JSX.Element {
  const injected = useContext(SessionApiContext);
  const shellApi = useShellApi();
  const api = injected ?? shellApi;
  const store = useMemo(() => createSessionStore(api, sessionId), [api, sessionId]);
  const focus = useShellFocus();
  const applied = useRef<number | null>(null);
  const change = useShellChange(sessionId);
  // The revision the view shows: what it loads on mounting is the session as the tab has it now.
  const shown = useRef(change?.revision ?? 0);

  const opened = useShellSummary(sessionId);

  // Before the first paint, not after it: the load's questions go out a frame sooner.
  useLayoutEffect(() => {
    void store.getState().load(opened ?? undefined);
    // A first view's store asks the host how far the whole has got while it is shown, not after.
    return () => store.getState().stop();
  }, [store, opened]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => applyKey(store, e);
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [store]);

  // A focus that arrives while the session is still loading is applied once it is ready.
  useEffect(() => {
    const tryApply = (): boolean => {
      const s = store.getState();
      // After the load's own first selection, which would otherwise replace the focus's.
      const settled = s.phase === 'ready' && (s.selected !== null || s.selectedRow !== null || s.requests.length === 0);
      if (!focus || applied.current === focus.nonce || !settled) return false;
      applied.current = focus.nonce;
      applyFocus(store, focus);
      return true;
    };
    if (tryApply() || !focus) return;
    return store.subscribe(() => {
      tryApply();
    });
  }, [focus, store]);

  // A change the host read into the session: once the view has loaded, it asks for what changed.
  useEffect(() => {
    if (!change || change.revision <= shown.current) return;
    const tryApply = (): boolean => {
      if (store.getState().phase !== 'ready' || change.revision <= shown.current) return false;
      shown.current = change.revision;
      void store.getState().refresh({ summary: change.summary, newest: change.following, reloaded: change.reloaded });
      return true;
    };
    if (tryApply()) return;
    const stop = store.subscribe(() => {
      if (tryApply()) stop();
    });
    return stop;
  }, [change, store]);

  return (
    <SessionContext.Provider value={store}>
      <SessionLayout />
    </SessionContext.Provider>
  );
}
