import type { TokenMeter as Meter } from '../../../shared/api/contract';
import { CATEGORY_LABEL } from '../../../shared/tokens/categories';
import { num, pct } from '../format';
import { meterLayout } from '../meter';

/**
 * One view's tokens: its categories stacked against the window, with the policy's lines and the
 * provider's figure on the same axis. Local counts are estimates and say so; the provider's figure
 * is the one to trust.
 */
export function TokenMeter({ meter }: { meter: Meter }): React.JSX.Element {
  const layout = meterLayout(meter);
  const l = meter.lines;
  return (
    <div className="sv-meter">
      <div className="sv-meter-figures">
        <span>
          <strong>{num(meter.total)}</strong> tokens estimated ({meter.encoding.name}
          {meter.encoding.exact ? '' : ', not the model’s own tokenizer'})
        </span>
        {meter.uncounted > 0 && <span className="muted"> · {num(meter.uncounted)} still estimated from characters</span>}
        <span>
          {' '}
          · reported <strong>{num(meter.reportedTokens)}</strong>
          {meter.reportedTokens === null ? ' (the log has no usage)' : ''}
        </span>
        {meter.ratio !== null && <span className="muted"> · ratio {meter.ratio.toFixed(2)}</span>}
        {meter.unlogged !== null && <span className="muted"> · {num(meter.unlogged)} not in the log</span>}
        <span>
          {' '}
          · window {num(l.window)}
          {l.windowSource === 'policy' ? ' (policy default: the log does not say)' : ''}
        </span>
        {meter.verdict && (
          <span className={`sv-state state-${meter.verdict.state}`}>
            {' '}
            · {meter.verdict.state} ({pct(meter.verdict.fill)} full)
          </span>
        )}
      </div>
      <div className="sv-meter-bar" role="img" aria-label={`Token meter: ${num(meter.total)} estimated of ${num(l.window)}`}>
        {layout.segments.map((s) => (
          <div
            key={s.category}
            className={`sv-seg cat-${s.category}`}
            style={{ left: `${s.x * 100}%`, width: `${s.width * 100}%` }}
            title={`${CATEGORY_LABEL[s.category]}: ${num(s.tokens)}`}
            data-category={s.category}
          />
        ))}
        {layout.lines.map((line) => (
          <div
            key={line.kind}
            className={`sv-line line-${line.kind} label-row-${Math.min(line.row, 3)} ${line.x > 0.8 ? 'right' : ''}`}
            style={{ left: `${line.x * 100}%` }}
            title={`${line.label}: ${num(line.tokens)}`}
            data-line={line.kind}
          >
            <span className="sv-line-label">
              {line.label} {num(line.tokens)}
            </span>
          </div>
        ))}
      </div>
      <ul className="sv-meter-legend">
        {layout.segments.map((s) => (
          <li key={s.category}>
            <span className={`sv-swatch cat-${s.category}`} /> {CATEGORY_LABEL[s.category]} {num(s.tokens)}
          </li>
        ))}
        {meter.unloggedSystem && <li className="unknown">system prompt sent but not logged</li>}
        {meter.unloggedTools && <li className="unknown">tool schemas sent but not logged</li>}
        {meter.uncountable.images + meter.uncountable.opaque + meter.uncountable.redacted > 0 && (
          <li className="unknown">
            not countable: {meter.uncountable.images} images, {meter.uncountable.opaque} opaque, {meter.uncountable.redacted} redacted
          </li>
        )}
      </ul>
    </div>
  );
}
