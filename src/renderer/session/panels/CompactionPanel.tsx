import { useState } from 'react';
import { SurvivalSection } from './SurvivalSection';
import type { CompactionDetail } from '../../../shared/api/contract';
import { RerunCompactionButton } from '../../rerun/RerunButtons';
import { useSession } from '../context';
import { chars, num } from '../format';
import { BracketTimeline } from './BracketTimeline';
import { MapReduceSection } from './MapReduceSection';
import { AttemptsTimeline, OrphanAttempts } from './AttemptsTimeline';
import { SummarizerCalls } from './SummarizerCalls';
import { TextDiffView } from './TextDiffView';
import { useQuery, valueOf } from './useQuery';

function PolicyLine({ d }: { d: CompactionDetail }): React.JSX.Element {
  const p = d.policy;
  return (
    <div>
      <span className="label">trigger</span> {d.trigger}
      {d.preTokens !== null && <> · before {num(d.preTokens)} tokens</>}
      {d.projectedTokens !== null && <> · projected {num(d.projectedTokens)}</>}
      {d.row.postTokens !== null && <> · after {num(d.row.postTokens)}</>} · <span className="label">policy</span>{' '}
      {p ? (
        [
          p.name,
          p.window !== undefined ? `window ${num(p.window)}` : null,
          p.triggerRatio !== undefined
            ? `trigger ${p.triggerRatio * 100} %`
            : p.triggerTokens !== undefined
              ? `trigger ${num(p.triggerTokens)}`
              : null,
          p.reactiveRatio !== undefined ? `reactive ${p.reactiveRatio * 100} %` : null,
          p.rawTailRatio !== undefined
            ? `raw tail ${p.rawTailRatio * 100} %`
            : p.rawTailTokens !== undefined
              ? `raw tail ${num(p.rawTailTokens)}`
              : p.rawTailMessages !== undefined
                ? `raw tail ${p.rawTailMessages} messages`
                : null,
          p.outputReserve !== undefined ? `output ${num(p.outputReserve)}` : null,
          p.headroom !== undefined ? `headroom ${num(p.headroom)}` : null,
          p.breaker ? `breaker ${p.breaker.failures} failures / ${p.breaker.cooldownTurns} turns` : null,
        ]
          .filter(Boolean)
          .join(' · ')
      ) : (
        <span className="unknown">not recorded in the log</span>
      )}
    </div>
  );
}

/** One compaction: bracket, trigger and policy, what the summarizer got and gave, diagnostics, MapReduce. */
export function CompactionPanel(): React.JSX.Element {
  const api = useSession((s) => s.api);
  const sessionId = useSession((s) => s.sessionId);
  const branch = useSession((s) => s.branch);
  const compactions = useSession((s) => s.compactions);
  const id = useSession((s) => s.compactionId);
  const open = useSession((s) => s.openCompaction);
  const jumpToSeq = useSession((s) => s.jumpToSeq);
  const select = useSession((s) => s.select);
  const [diffWith, setDiffWith] = useState(false);
  const joined = useSession((s) => s.joined);
  const attempts = joined?.compactions.find((c) => c.id === id)?.attempts ?? null;
  // A compaction may end in lines written since: asked again at each change of the session.
  const revision = useSession((s) => s.revision);
  const q = useQuery(branch === null || id === null ? null : `${branch}\u0000${id}\u0000${revision}`, () =>
    api.getCompaction({ sessionId, branch: branch ?? undefined, compactionId: id ?? '' }),
  );
  const position = compactions.findIndex((c) => c.id === id);
  const previousId = position > 0 ? (compactions[position - 1]?.id ?? null) : null;
  // The one before it too (a rewritten session may hold another under its id).
  const prevQ = useQuery(diffWith && branch !== null && previousId !== null ? `${branch}\u0000${previousId}\u0000${revision}` : null, () =>
    api.getCompaction({ sessionId, branch: branch ?? undefined, compactionId: previousId ?? '' }),
  );
  const d = valueOf(q);
  const prev = valueOf(prevQ);
  if (compactions.length === 0)
    return (
      <div>
        <p className="muted pad">No compaction on this branch.</p>
        <OrphanAttempts />
      </div>
    );
  const pick = (seq: number) => void jumpToSeq(seq);
  const summary = d?.summaries[d.summaries.length - 1] ?? null;
  const prevSummary = prev?.summaries[prev.summaries.length - 1] ?? null;

  return (
    <div className="sv-compaction">
      <div className="sv-compaction-pick">
        <label>
          compaction{' '}
          <select value={id ?? ''} onChange={(e) => open(e.target.value)} aria-label="Compaction">
            {compactions.map((c) => (
              <option key={c.id} value={c.id}>
                {c.id} · {c.trigger} · {c.outcome ?? 'open'}
                {c.strategy ? ` · ${c.strategy}` : ''}
              </option>
            ))}
          </select>
        </label>
        {id !== null && <RerunCompactionButton sessionId={sessionId} branch={branch} compactionId={id} />}
      </div>
      {q.state === 'error' && (
        <div className="notice error" role="alert">
          <strong>{q.error.code}</strong> {q.error.message}
        </div>
      )}
      {!d ? (
        <p className="muted pad">Loading the compaction…</p>
      ) : (
        <>
          <div className="sv-compaction-head">
            <strong>{d.row.id}</strong> · outcome{' '}
            <span className={d.row.outcome === 'committed' ? '' : 'sev-warning'}>{d.row.outcome ?? 'open (no end)'}</span>
            {d.row.strategy && <> · {d.row.strategy}</>}
            {d.row.fallback && (
              <>
                {' '}
                · fallback {d.row.fallback.kind}
                {d.row.fallback.marker ? ' (visible marker)' : <span className="sev-error"> (no visible marker)</span>}
              </>
            )}
            {d.row.error && (
              <span className="sev-error">
                {' '}
                · {d.row.error.code ?? 'error'}: {d.row.error.message}
              </span>
            )}
            {d.bracket.requestBefore !== null && (
              <>
                {' '}
                ·{' '}
                <button type="button" className="link" onClick={() => void select(d.bracket.requestBefore ?? 0)}>
                  view before (#{d.bracket.requestBefore})
                </button>
              </>
            )}
            {d.bracket.requestAfter !== null && (
              <>
                {' '}
                ·{' '}
                <button type="button" className="link" onClick={() => void select(d.bracket.requestAfter ?? 0)}>
                  view after (#{d.bracket.requestAfter})
                </button>
              </>
            )}
          </div>
          <BracketTimeline bracket={d.bracket} onPick={pick} />
          <PolicyLine d={d} />
          <div className="muted small">
            source: {d.source.length} items{d.source.length > 0 ? ` (${d.source[0]?.id} … ${d.source[d.source.length - 1]?.id})` : ''}
          </div>
          {attempts && <AttemptsTimeline attempts={attempts} label={`Attempts of compaction ${d.row.id}`} />}
          <SummarizerCalls d={d} onSelect={(i) => void select(i)} />
          {d.errors.length > 0 && (
            <ul className="sv-list" aria-label="Failed attempts">
              {d.errors.map((e) => (
                <li key={e.seq} className="sev-error">
                  seq{' '}
                  <button type="button" className="link" onClick={() => pick(e.seq)}>
                    {e.seq}
                  </button>{' '}
                  · {e.error.code ?? 'error'}: {e.error.message}
                  {e.finish ? ` · finish ${e.finish.raw}` : ''}
                </li>
              ))}
            </ul>
          )}
          <h3>Returned</h3>
          {d.summaries.length === 0 && (
            <p className="muted">
              No summary event in the log{d.checkpoints.length > 0 ? ': the checkpoint it committed is below' : ''}
              {d.mapreduce ? ' (MapReduce: the reductions and corrections are further down)' : ''}.
            </p>
          )}
          {d.summaries.map((s) => (
            <div key={s.seq} className="sv-summary">
              <div className="muted small">
                summary at seq {s.seq} · finish {s.finish ? `${s.finish.raw} (${s.finish.reason})` : 'not recorded'} · usage{' '}
                {s.usage ? `${num(s.usage.input)} in / ${num(s.usage.output)} out` : 'not recorded'}
                {s.sourceTokens !== null ? ` · source ${num(s.sourceTokens)} tokens` : ''} · {chars(s.text.chars)}
              </div>
              <pre className="sv-pre sv-summary-text">{s.text.text}</pre>
            </div>
          ))}
          {d.checkpoints.map((k) => (
            <details key={k.id} open={d.summaries.length === 0}>
              <summary>
                checkpoint item {k.id} (seq {k.seq}, {chars(k.text.chars)})
              </summary>
              <pre className="sv-pre">{k.text.text}</pre>
            </details>
          ))}
          {previousId && summary && (
            <label className="small">
              <input type="checkbox" checked={diffWith} onChange={(e) => setDiffWith(e.target.checked)} /> diff with the summary of{' '}
              {previousId}
            </label>
          )}
          {diffWith && summary && prevSummary && (
            <TextDiffView before={prevSummary.text.text} after={summary.text.text} beforeLabel={previousId ?? ''} afterLabel={d.row.id} />
          )}
          {d.survival && <SurvivalSection survival={d.survival} onPick={pick} />}
          <h3>Diagnostics ({d.diagnostics.length})</h3>
          <ul className="sv-list">
            {d.diagnostics.map((x, i) => (
              <li key={`${x.rule}-${i}`} className={`sev-${x.severity}`}>
                {x.severity} <code>{x.rule}</code> {x.message}
                {x.seqs[0] !== undefined && (
                  <button type="button" className="link" onClick={() => pick(x.seqs[0] ?? 0)}>
                    {' '}
                    jump
                  </button>
                )}
              </li>
            ))}
          </ul>
          {d.mapreduce && <MapReduceSection mr={d.mapreduce} onPick={pick} />}
        </>
      )}
      <OrphanAttempts />
    </div>
  );
}
