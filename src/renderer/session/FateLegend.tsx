import { FATE_NAMES } from '../../shared/api/contract';

const EXPLAIN: Record<(typeof FATE_NAMES)[number] | 'later' | 'none', string> = {
  verbatim: 'the model saw it as written',
  masked: 'hidden behind a reference',
  pruned: 'cut to head + tail',
  summarised: 'replaced by a checkpoint',
  dropped: 'removed from the view',
  reinjected: 'put back into the view',
  later: 'written after this request',
  none: 'the log does not say (unknown)',
};

/** The fate colours, with what each means (shown on hover and to screen readers). */
export function FateLegend({ counts }: { counts?: Partial<Record<(typeof FATE_NAMES)[number], number>> }): React.JSX.Element {
  return (
    <ul className="legend" aria-label="Fate legend">
      {[...FATE_NAMES, 'later' as const, 'none' as const].map((f) => (
        <li key={f} title={EXPLAIN[f]}>
          <span className={`chip fate-${f}`} aria-label={`${f}: ${EXPLAIN[f]}`}>
            {f === 'none' ? 'unknown' : f === 'later' ? 'after' : f}
          </span>
          {counts && f !== 'later' && f !== 'none' && <span className="muted small"> {counts[f] ?? 0}</span>}
        </li>
      ))}
    </ul>
  );
}
