import type { TokenSeries } from '../../../shared/api/contract';
import { chartLayout } from '../chart';
import { num, short } from '../format';

const BOX = { width: 1000, height: 160, left: 0, pad: 8 };

/**
 * Context size over every agent request (reported where the provider said, else estimated), the
 * policy's trigger and the window as lines, compactions as marks where the context drops. A click
 * selects the request under it.
 */
export function ContextChart({
  series,
  selected,
  onSelect,
}: {
  series: TokenSeries;
  selected: number | null;
  onSelect: (index: number) => void;
}): React.JSX.Element {
  const c = chartLayout(series, BOX);
  const cursor = selected === null ? null : c.xOf(selected);
  if (c.points.length === 0) return <p className="muted pad">No agent request to chart.</p>;
  return (
    <figure className="sv-chart">
      <div className="sv-chart-axis muted small">
        <span>{short(c.yMax)}</span>
        <span>0</span>
      </div>
      <svg
        viewBox={`0 0 ${BOX.width} ${BOX.height}`}
        preserveAspectRatio="none"
        role="img"
        aria-label={`Context size over ${c.points.length} requests, ${c.compactions.length} compactions, ${c.breaks.length} prompt-cache breaks`}
        onClick={(e) => {
          const r = e.currentTarget.getBoundingClientRect();
          const i = c.indexAt(((e.clientX - r.left) / Math.max(1, r.width)) * BOX.width);
          if (i !== null) onSelect(i);
        }}
      >
        {c.window && <path d={c.window} className="sv-chart-window" vectorEffect="non-scaling-stroke" data-line="window" />}
        {c.trigger && <path d={c.trigger} className="sv-chart-trigger" vectorEffect="non-scaling-stroke" data-line="trigger" />}
        {c.compactions.map((k) => (
          <line
            key={k.id}
            x1={k.x}
            x2={k.x}
            y1={0}
            y2={BOX.height}
            className="sv-chart-compaction"
            vectorEffect="non-scaling-stroke"
            data-compaction={k.id}
          >
            <title>{k.id}</title>
          </line>
        ))}
        <path d={c.size} className="sv-chart-size" vectorEffect="non-scaling-stroke" />
        {c.breaks.map((b) => (
          <line
            key={`break-${b.index}`}
            x1={b.x}
            x2={b.x}
            y1={b.y}
            y2={BOX.height}
            className="sv-chart-break"
            vectorEffect="non-scaling-stroke"
            data-break={b.index}
          >
            <title>{b.label}</title>
          </line>
        ))}
        {cursor !== null && (
          <line x1={cursor} x2={cursor} y1={0} y2={BOX.height} className="sv-chart-cursor" vectorEffect="non-scaling-stroke" />
        )}
      </svg>
      <figcaption className="muted small">
        <span className="sv-key size" /> context (
        {series.points.some((p) => p.reported !== null) ? 'reported where logged, else estimated' : 'estimated'}){' '}
        <span className="sv-key trigger" /> trigger ({series.policy.name}) <span className="sv-key window" /> window{' '}
        <span className="sv-key compaction" /> compaction
        {c.breaks.length > 0 && (
          <>
            {' '}
            <span className="sv-key break" /> prompt-cache break
          </>
        )}
        {series.triggers.length > 0 && (
          <>
            {' '}
            · the policy would compact after #{series.triggers.slice(0, 8).join(', #')}
            {series.triggers.length > 8 ? ' …' : ''}
          </>
        )}
        {series.unpredicted.length > 0 && <> · not predicted: #{series.unpredicted.join(', #')}</>} · peak{' '}
        {num(Math.max(...c.points.map((p) => p.tokens)))}
      </figcaption>
    </figure>
  );
}
