import { useSession } from '../context';
import type { DetailTab } from '../store';
import { CompactionPanel } from './CompactionPanel';
import { DiagnosticsPanel } from './DiagnosticsPanel';
import { DiffPanel } from './DiffPanel';
import { EventPanel } from './EventPanel';
import { TokenPanel } from './TokenPanel';

const TABS: readonly { id: DetailTab; label: string }[] = [
  { id: 'tokens', label: 'Tokens' },
  { id: 'compaction', label: 'Compaction' },
  { id: 'diff', label: 'Diff' },
  { id: 'diagnostics', label: 'Diagnostics' },
  { id: 'event', label: 'Event' },
];

/** The panels under the panes: one at a time, chosen by tab. */
export function DetailPanel(): React.JSX.Element {
  const tab = useSession((s) => s.tab);
  const setTab = useSession((s) => s.setTab);
  const compactions = useSession((s) => s.compactions.length);
  const diagnostics = useSession((s) => s.diagnostics.length);
  const count = (id: DetailTab): string => (id === 'compaction' ? ` (${compactions})` : id === 'diagnostics' ? ` (${diagnostics})` : '');
  return (
    <section className="sv-detail" aria-label="Details">
      <div className="sv-tabs" role="tablist">
        {TABS.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            aria-selected={tab === t.id}
            className={tab === t.id ? 'active' : ''}
            onClick={() => setTab(t.id)}
          >
            {t.label}
            {count(t.id)}
          </button>
        ))}
      </div>
      <div className="sv-tab-body" role="tabpanel" aria-label={TABS.find((t) => t.id === tab)?.label}>
        {tab === 'tokens' && <TokenPanel />}
        {tab === 'compaction' && <CompactionPanel />}
        {tab === 'diff' && <DiffPanel />}
        {tab === 'diagnostics' && <DiagnosticsPanel />}
        {tab === 'event' && <EventPanel />}
      </div>
    </section>
  );
}
