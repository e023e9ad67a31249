import { useEffect, useState } from 'react';
import type { ApiError, ApiOutput } from '../../shared/api/contract';
import { aboveShare, HEALTH_GROUPS, type HealthBucket, type HealthGroup } from '../../shared/health/aggregate';
import { healthCharts, kilo, type HealthChart } from '../../shared/health/charts';
import type { SessionHealth } from '../../shared/health/row';
import { useApp } from '../useApp';

/*
 * The library's Health tab (docs/health.md): compaction health across the library's sessions,
 * per day, project, harness or model. The host builds and keeps the rows (healthReport); this
 * view only draws the buckets it is given. Every bar is a button (click, Enter or Space) that
 * lists the sessions and compactions behind it; one opens the session at that compaction.
 * Session text (projects, models, paths) is rendered as text.
 */

/** How often progress is asked for while the host reads sessions. */
const PROGRESS_MS = 500;
const ROW = 20;
const LABEL = 200;
const WIDTH = 640;

interface Picked {
  readonly chart: string;
  readonly index: number;
}

function BarChart(props: {
  chart: HealthChart;
  buckets: readonly HealthBucket[];
  picked: Picked | null;
  onPick: (index: number) => void;
}): React.JSX.Element {
  const { chart, buckets } = props;
  const totals = buckets.map((b) => chart.series.reduce((a, s) => a + s.value(b), 0));
  const max = Math.max(1, ...totals);
  const plot = WIDTH - LABEL - 70;
  return (
    <figure className="health-chart">
      <figcaption>{chart.title}</figcaption>
      {chart.series.length > 1 && (
        <p className="legend small">
          {chart.series.map((s) => (
            <span key={s.label}>
              <svg width="10" height="10" aria-hidden="true">
                <rect width="10" height="10" fill={s.color} />
              </svg>{' '}
              {s.label}
            </span>
          ))}
        </p>
      )}
      <svg width={WIDTH} height={buckets.length * ROW + 8} role="group" aria-label={chart.title}>
        {buckets.map((b, i) => {
          let x = LABEL;
          const y = i * ROW + 4;
          const picked = props.picked?.chart === chart.id && props.picked.index === i;
          const label = `${b.key}: ${chart.series.map((s) => `${s.label} ${chart.format(s.value(b))}`).join(', ')}`;
          return (
            <g
              key={b.key}
              role="button"
              tabIndex={0}
              aria-label={label}
              aria-pressed={picked}
              className={picked ? 'bar picked' : 'bar'}
              onClick={() => props.onPick(i)}
              onKeyDown={(e) => {
                if (e.key !== 'Enter' && e.key !== ' ') return;
                e.preventDefault();
                props.onPick(i);
              }}
            >
              <title>{label}</title>
              <rect x={0} y={y - 2} width={WIDTH} height={ROW} fill="transparent" />
              <text x={LABEL - 6} y={y + ROW - 9} textAnchor="end">
                {b.key.length > 28 ? `…${b.key.slice(-27)}` : b.key}
              </text>
              {chart.series.map((s) => {
                const w = (s.value(b) / max) * plot;
                const rect = w > 0 ? <rect key={s.label} x={x} y={y} width={Math.max(1, w)} height={ROW - 6} fill={s.color} /> : null;
                x += w;
                return rect;
              })}
              <text x={x + 4} y={y + ROW - 9} className="v">
                {chart.format(totals[i] ?? 0)}
              </text>
            </g>
          );
        })}
      </svg>
    </figure>
  );
}

function DrillDown(props: { bucket: HealthBucket; sessions: ReadonlyMap<string, SessionHealth> }): React.JSX.Element {
  const openPath = useApp((s) => s.openPath);
  const goTo = useApp((s) => s.goTo);
  const { bucket: b } = props;
  const open = async (s: SessionHealth, seq?: number): Promise<void> => {
    // A database of many sessions opens one by its id.
    const ok = await openPath(s.path, s.key !== s.path && s.sessionId !== null ? s.sessionId : undefined);
    if (ok && seq !== undefined) goTo({ seq });
  };
  const rows = b.sessionKeys.map((k) => props.sessions.get(k)).filter((s): s is SessionHealth => s !== undefined);
  return (
    <section className="health-drill" aria-label={`Sessions and compactions behind ${b.key}`}>
      <h3>{b.key}</h3>
      <p className="muted small">
        {b.sessions} sessions, {b.compactions} compactions ({b.failed} failed, {b.inferredFailed} inferred failed)
      </p>
      <ul className="plain-list">
        {rows.map((s) => (
          <li key={s.key}>
            <button type="button" className="link" title={s.path} onClick={() => void open(s)}>
              {s.path}
            </button>{' '}
            <span className="muted small">
              {s.harness} · {s.day ?? 'no day'} · {s.requests} requests · peak {kilo(s.peakContext)}
            </span>
            {s.compactions.length > 0 && (
              <ul className="plain-list health-compactions">
                {s.compactions.map((c) => (
                  <li key={c.id}>
                    <button type="button" className="link" onClick={() => void open(s, c.seq)}>
                      compaction {c.id}
                    </button>{' '}
                    <span className={c.outcome === 'committed' && !c.inferredFailed ? 'muted small' : 'sev-warning small'}>
                      {c.trigger}, {c.outcome ?? 'open'}
                      {c.inferredFailed ? ', inferred failed' : ''} · {kilo(c.preTokens)} → {kilo(c.postTokens)}
                    </span>
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The Health tab: grouping and day controls, charts, totals and the drill-down of the bar picked. */
export function HealthView(): React.JSX.Element {
  const api = useApp((s) => s.api);
  const [by, setBy] = useState<HealthGroup>('day');
  const [since, setSince] = useState('');
  const [refresh, setRefresh] = useState(0);
  const [report, setReport] = useState<ApiOutput<'healthReport'> | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const [picked, setPicked] = useState<Picked | null>(null);

  useEffect(() => {
    let live = true;
    const day = /^\d{4}-\d{2}-\d{2}$/.test(since) ? since : undefined;
    const timer = setInterval(() => {
      void api.healthProgress({}).then((p) => {
        if (live && p.ok && p.value.running) setProgress({ done: p.value.done, total: p.value.total });
      });
    }, PROGRESS_MS);
    const show = (r: Awaited<ReturnType<typeof api.healthReport>>): void => {
      if (!live) return;
      if (r.ok) {
        setReport(r.value);
        setError(null);
      } else setError(r.error);
      // The rows the session index held are painted at once; the update's rows replace them when it ends.
      if (r.ok && r.value.updating) {
        void api.healthReport({ by, ...(day ? { since: day } : {}), settled: true }).then((s) => {
          clearInterval(timer);
          if (live) setProgress(null);
          show(s);
        });
        return;
      }
      clearInterval(timer);
      setProgress(null);
    };
    void api.healthReport({ by, ...(day ? { since: day } : {}), ...(refresh > 0 ? { refresh: true } : {}) }).then(show);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [api, by, since, refresh]);

  const sessions = new Map((report?.sessions ?? []).map((s) => [s.key, s]));
  const bucket = picked ? report?.buckets[picked.index] : undefined;
  const t = report?.total;
  return (
    <div className="health">
      <div className="health-controls">
        <span role="radiogroup" aria-label="Group by">
          Group by{' '}
          {HEALTH_GROUPS.map((g) => (
            <button
              key={g}
              type="button"
              role="radio"
              aria-checked={by === g}
              className={by === g ? 'tab active' : 'tab'}
              onClick={() => {
                setBy(g);
                setPicked(null);
              }}
            >
              {g}
            </button>
          ))}
        </span>{' '}
        <label>
          since{' '}
          <input type="date" value={since} onChange={(e) => setSince(e.target.value)} aria-label="Only sessions on or after this day" />
        </label>{' '}
        <button type="button" className="link" onClick={() => setRefresh((n) => n + 1)}>
          read again
        </button>
      </div>
      {report?.updating && (
        <p className="muted" role="status">
          Showing what the session index held; bringing it up to date
          {progress && progress.total > 0 ? `: ${progress.done} of ${progress.total} sessions read` : ''}…
        </p>
      )}
      {progress && !report?.updating && (
        <p role="status">
          Reading sessions: {progress.done} of {progress.total}…
        </p>
      )}
      {error && (
        <div className="notice error" role="alert">
          <strong>{error.code}</strong> {error.message}
        </div>
      )}
      {!report && !error && !progress && <p className="muted">Reading sessions…</p>}
      {report && t && (
        <>
          <p className="health-total">
            {t.sessions} sessions, {t.requests} requests, {t.compactions} compactions: {t.failed} failed, {t.inferredFailed} inferred
            failed;{' '}
            {aboveShare(t) === null
              ? 'no request measured against a trigger'
              : `${((aboveShare(t) ?? 0) * 100).toFixed(1)} % of requests at or above the trigger`}
            ; peak context {kilo(t.peakContext)}; {t.cacheBreaks} prompt-cache breaks.{' '}
            <span className="muted small">
              ({report.cached} from the cache, {report.built} read now
              {report.problems.length > 0 ? `, ${report.problems.length} not read` : ''})
            </span>
          </p>
          {report.buckets.length === 0 ? (
            <p className="muted">No session to report on.</p>
          ) : (
            <div className="health-body">
              <div className="health-charts">
                {healthCharts(by).map((c) => (
                  <BarChart
                    key={c.id}
                    chart={c}
                    buckets={report.buckets}
                    picked={picked}
                    onPick={(index) => setPicked({ chart: c.id, index })}
                  />
                ))}
              </div>
              {bucket ? (
                <DrillDown bucket={bucket} sessions={sessions} />
              ) : (
                <p className="muted">Pick a bar to list the sessions and compactions behind it.</p>
              )}
            </div>
          )}
          {report.problems.length > 0 && (
            <details>
              <summary>Not read ({report.problems.length})</summary>
              <ul className="problems">
                {report.problems.map((p) => (
                  <li key={p.path} className="sev-warning">
                    {p.path}: {p.error}
                  </li>
                ))}
              </ul>
            </details>
          )}
        </>
      )}
    </div>
  );
}
