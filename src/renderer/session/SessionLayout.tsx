import { AlignmentBar } from './AlignmentBar';
import { useSession } from './context';
import { DetailPanel } from './panels/DetailPanel';
import { ExportDialog } from './ExportDialog';
import { KeyHelp } from './KeyHelp';
import { ModelViewPane } from './ModelViewPane';
import { PartialNotice } from './PartialNotice';
import { RawHistory } from './RawHistory';
import { RequestList } from './RequestList';
import { useSecondStage } from './staged';
import { Timeline } from './Timeline';
import { WireViewPane } from './WireViewPane';

/**
 * Timeline on top, the three panes in the middle, the detail panels below. The raw history and the
 * panels come once the first model view is on screen (./staged.ts); until then their places are held.
 */
export function SessionLayout(): React.JSX.Element {
  const phase = useSession((s) => s.phase);
  const error = useSession((s) => s.error);
  const showKeys = useSession((s) => s.showKeys);
  const showExport = useSession((s) => s.showExport);
  const wireOnly = useSession((s) => s.wire !== null);
  const second = useSecondStage();

  if (phase === 'loading')
    return (
      <div className="notice" role="status">
        Loading the session…
      </div>
    );
  if (phase === 'error') {
    return (
      <div className="notice error" role="alert">
        <strong>{error?.code ?? 'ERROR'}</strong> {error?.message ?? 'The session could not be shown.'}
      </div>
    );
  }
  return (
    <div className="session-view">
      <PartialNotice />
      <Timeline />
      {showKeys && <KeyHelp />}
      {showExport && <ExportDialog />}
      <AlignmentBar />
      <main className="sv-panes">
        <RequestList />
        {wireOnly ? <WireViewPane /> : <ModelViewPane />}
        {second ? (
          <RawHistory />
        ) : (
          <section className="pane raw" aria-label="Raw history" aria-busy="true">
            <h2>
              Raw history <span className="muted">· loading…</span>
            </h2>
          </section>
        )}
      </main>
      {second ? <DetailPanel /> : <section className="sv-detail" aria-label="Details" aria-busy="true" />}
    </div>
  );
}
