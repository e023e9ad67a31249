import { useEffect } from 'react';
import { ShortcutsHelp } from './app/ShortcutsHelp';
import { useDropFiles } from './app/useDropFiles';
import { useShortcuts } from './app/useShortcuts';
import { Header } from './components/Header';
import { HomeArea } from './eval/HomeArea';
import { LibraryView } from './library/LibraryView';
import { OpeningLine } from './library/OpeningLine';
import { useSessionMode } from './rerun/registry';
import { RerunView } from './rerun/RerunView';
import { SessionModeTabs } from './rerun/SessionModeTabs';
import { SearchBar } from './search/SearchBar';
import { SessionView } from './session/SessionView';
import { FollowToggle } from './session/FollowToggle';
import { useApp } from './useApp';

/**
 * The open session: the search bar when it is open, then the session view (UI-2's) for this tab
 * or, when chosen above it, re-run & compare (./rerun, docs/rerun.md).
 */
function SessionArea({ sessionId }: { sessionId: string }): React.JSX.Element {
  const searching = useApp((s) => s.search.open && s.search.sessionId === sessionId);
  const mode = useSessionMode(sessionId);
  return (
    <>
      {searching && <SearchBar />}
      <div className="session-bar">
        <SessionModeTabs sessionId={sessionId} />
        <FollowToggle sessionId={sessionId} />
      </div>
      {mode === 'rerun' ? <RerunView key={sessionId} sessionId={sessionId} /> : <SessionView key={sessionId} sessionId={sessionId} />}
    </>
  );
}

/** Before the library or the first session is shown: connecting, then opening the session the host was started with. */
function Starting(): React.JSX.Element {
  const path = useApp((s) => s.opening[0]);
  return (
    <div className="notice opening" role="status">
      {path === undefined ? 'Connecting…' : <OpeningLine path={path} />}
    </div>
  );
}

/** The app shell: the app bar with its tabs, then the library (or, beside it, the evals: ./eval) or the active session. */
export function App(): React.JSX.Element {
  const phase = useApp((s) => s.phase);
  const error = useApp((s) => s.error);
  const active = useApp((s) => s.active);
  const help = useApp((s) => s.help);
  const start = useApp((s) => s.start);
  useShortcuts();
  useDropFiles();

  useEffect(() => {
    void start();
  }, [start]);

  return (
    <div className="app">
      <Header />
      <div className="tabpanel" id="tabpanel" role="tabpanel" aria-labelledby={active === null ? 'tab-library' : `tab-${active}`}>
        {phase === 'starting' ? (
          <Starting />
        ) : phase === 'error' ? (
          <div className="notice error" role="alert">
            <strong>{error?.code ?? 'ERROR'}</strong> {error?.message ?? 'Something went wrong.'}
          </div>
        ) : active === null ? (
          <HomeArea library={<LibraryView />} />
        ) : (
          <SessionArea sessionId={active} />
        )}
      </div>
      {help && <ShortcutsHelp />}
    </div>
  );
}
