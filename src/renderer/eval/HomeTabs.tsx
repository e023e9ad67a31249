import { setHomeMode, useHomeMode, type HomeMode } from './home';
import './eval.css';

/**
 * Beside the Library: compaction health (docs/health.md) and the evals (docs/eval.md). Tabs over the Library tab's panel, as a session has
 * Inspect and Re-run & compare; arrow keys move between them.
 */

const MODES: readonly { readonly id: HomeMode; readonly label: string }[] = [
  { id: 'library', label: 'Sessions' },
  { id: 'health', label: 'Health' },
  { id: 'evals', label: 'Evals' },
];

export function HomeTabs(): React.JSX.Element {
  const mode = useHomeMode();
  const onKey = (e: React.KeyboardEvent): void => {
    if (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft') return;
    const at = MODES.findIndex((m) => m.id === mode);
    const next = MODES[(at + (e.key === 'ArrowRight' ? 1 : MODES.length - 1)) % MODES.length];
    if (!next) return;
    e.preventDefault();
    setHomeMode(next.id);
    document.getElementById(`home-${next.id}`)?.focus();
  };
  return (
    <div className="ev-home-tabs" role="tablist" aria-label="Library view" onKeyDown={onKey}>
      {MODES.map((m) => (
        <button
          key={m.id}
          type="button"
          role="tab"
          id={`home-${m.id}`}
          aria-selected={mode === m.id}
          tabIndex={mode === m.id ? 0 : -1}
          className={mode === m.id ? 'active' : ''}
          onClick={() => setHomeMode(m.id)}
        >
          {m.label}
        </button>
      ))}
    </div>
  );
}
