import { useState } from 'react';
import { useSession } from '../context';
import { CacheBreakList } from './CacheBreakList';
import { ContextChart } from './ContextChart';
import { TokenMeter } from './TokenMeter';
import { PartialNote } from '../PartialNotice';
import { useQuery, valueOf } from './useQuery';

/** The view's token meter, the policy it is judged by (editable), and context size over the session. */
export function TokenPanel(): React.JSX.Element {
  const api = useSession((s) => s.api);
  const sessionId = useSession((s) => s.sessionId);
  const branch = useSession((s) => s.branch);
  const selected = useSession((s) => s.selected);
  // The chart covers the whole session: asked again at each change of it (and the meter with it).
  const revision = useSession((s) => s.revision);
  const select = useSession((s) => s.select);
  const [draft, setDraft] = useState('');
  const [policy, setPolicy] = useState('');
  const spec = policy.trim() === '' ? undefined : policy.trim();
  const meterQ = useQuery(
    branch === null || selected === null ? null : `${branch}\u0000${selected}\u0000${policy}\u0000${revision}`,
    () => api.getTokenMeter({ sessionId, branch: branch ?? undefined, index: selected ?? 0, policy: spec }),
    1000,
    (m) => m.counting.state === 'counting' || m.pending,
  );
  const meter = valueOf(meterQ);
  const counted = meter?.counting.state === 'done';
  const seriesQ = useQuery(
    branch === null ? null : `${branch}\u0000${policy}\u0000${counted}\u0000${revision}`,
    () => api.getTokenSeries({ sessionId, branch: branch ?? undefined, policy: spec }),
    1000,
    (v) => v.pending,
  );
  const series = valueOf(seriesQ);

  return (
    <div className="sv-tokens">
      <form
        className="sv-policy"
        onSubmit={(e) => {
          e.preventDefault();
          setPolicy(draft);
        }}
      >
        <label>
          policy{' '}
          <input
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            placeholder={meter ? meter.policy.id : 'default'}
            aria-label="Policy"
            size={34}
          />
        </label>
        <button type="submit">apply</button>
        <span className="muted small">
          {' '}
          e.g. <code>dsh,trigger=0.7</code>, <code>claude-code,window=1000000</code>
        </span>
        {meter?.policyError && (
          <span className="sev-error small" role="alert">
            {' '}
            {meter.policyError}
          </span>
        )}
        {meter && (
          <span className="muted small">
            {' '}
            {meter.policy.name}: trigger {meter.policy.trigger} ({meter.policy.measure})
            {meter.policy.rawTail ? `, raw tail ${meter.policy.rawTail}` : ''}
            {meter.policy.outputReserve ? `, output ${meter.policy.outputReserve}` : ''}
            {meter.policy.headroom ? `, headroom ${meter.policy.headroom}` : ''}
          </span>
        )}
        {meter && meter.counting.state !== 'done' && (
          <span className="muted small sv-counting" role="status" data-state={meter.counting.state}>
            {' '}
            ·{' '}
            {meter.counting.state === 'failed'
              ? `counting failed (${meter.counting.error ?? 'unknown error'}): figures stay estimates`
              : meter.counting.state === 'estimate'
                ? 'estimates: the texts are counted once the whole session is in'
                : meter.counting.totalRefs > 0
                  ? `counting ${meter.counting.refs} of ${meter.counting.totalRefs} texts…`
                  : 'counting…'}
          </span>
        )}
      </form>
      {meterQ.state === 'error' && (
        <div className="notice error" role="alert">
          <strong>{meterQ.error.code}</strong> {meterQ.error.message}
        </div>
      )}
      {meter ? <TokenMeter meter={meter} /> : <p className="muted pad">Counting…</p>}
      {seriesQ.state === 'error' && (
        <div className="notice error" role="alert">
          <strong>{seriesQ.error.code}</strong> {seriesQ.error.message}
        </div>
      )}
      <PartialNote what="The chart and its totals cover the part of the session read so far." />
      {series && series.points.length > 0 && <ContextChart series={series} selected={selected} onSelect={(i) => void select(i)} />}
      {series && <CacheBreakList series={series} onSelect={(i) => void select(i)} />}
      {series && series.pending && (
        <p className="muted small" role="status">
          {series.points.length > 0 ? 'Updating the chart with the counted figures…' : 'Building the session’s token report for the chart…'}
        </p>
      )}
    </div>
  );
}
