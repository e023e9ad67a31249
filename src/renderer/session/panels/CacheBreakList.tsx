import type { TokenSeries } from '../../../shared/api/contract';
import { num } from '../format';

const usd = (c: number | null): string => (c === null ? 'unpriced' : `$${c.toFixed(c < 1 ? 4 : 2)}`);

/**
 * The branch's prompt-cache breaks as a list under the chart: what each cost in tokens (and money,
 * where prices are known) and why, each a button that selects its request — the chart's marks are
 * for the eye, this is for the keyboard and for reading.
 */
export function CacheBreakList({ series, onSelect }: { series: TokenSeries; onSelect: (index: number) => void }): React.JSX.Element | null {
  const t = series.cacheBreaks;
  const rows = series.points.filter((p) => p.cacheBreak !== null);
  if (t.count === 0) return null;
  return (
    <details className="sv-breaks small">
      <summary>
        {t.count} prompt-cache break{t.count === 1 ? '' : 's'}: {num(t.tokens)} tokens not read from the cache
        {t.cost === null ? ' (cost unknown: give the model a price in the re-run settings)' : `, ${usd(t.cost)} beyond cache reads`}
      </summary>
      <ul>
        {rows.map((p) => {
          const b = p.cacheBreak as NonNullable<typeof p.cacheBreak>;
          return (
            <li key={p.index}>
              <button type="button" className="link" onClick={() => onSelect(p.index)}>
                #{p.index}
              </button>{' '}
              <strong>
                {b.cause}
                {b.certain ? '' : '?'}
              </strong>{' '}
              {num(b.tokens)} tokens ({num(b.read)} read of {num(b.expected)}), {usd(b.cost)}: <span className="muted">{b.why}</span>
            </li>
          );
        })}
      </ul>
    </details>
  );
}
