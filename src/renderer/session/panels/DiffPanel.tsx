import { useEffect, useState } from 'react';
import { FATE_NAMES, type FateName } from '../../../shared/api/contract';
import { useSession } from '../context';
import { chars, fateTitle } from '../format';
import { useQuery, valueOf } from './useQuery';

const PAGE = 200;

/*
 * Both halves ask again at each change of the session (`revision`), the choices kept: a session
 * read again from the start (a file rewritten or truncated) may hold other views at the same
 * requests, and lines appended replace what the last read ended with (a response still open, a
 * compaction not yet finished), which a view may hold.
 */

/** The view against the raw history: how many raw items met each fate, and which (paged). */
function ViewVsRaw(): React.JSX.Element {
  const api = useSession((s) => s.api);
  const sessionId = useSession((s) => s.sessionId);
  const branch = useSession((s) => s.branch);
  const selected = useSession((s) => s.selected);
  const jumpToSeq = useSession((s) => s.jumpToSeq);
  const revision = useSession((s) => s.revision);
  const [fate, setFate] = useState<FateName | null>(null);
  const [from, setFrom] = useState(0);
  const q = useQuery(
    branch === null || selected === null ? null : `${branch}\u0000${selected}\u0000${fate}\u0000${from}\u0000${revision}`,
    () => api.listFates({ sessionId, branch: branch ?? undefined, index: selected ?? 0, fate: fate ?? undefined, from, count: PAGE }),
  );
  const v = valueOf(q);
  // A page past the end (the session read again, shorter): the last page instead.
  const total = q.state === 'ready' ? q.value.total : null;
  useEffect(() => {
    if (total !== null && from > 0 && from >= total) setFrom(Math.max(0, Math.ceil(total / PAGE) - 1) * PAGE);
  }, [total, from]);
  const choose = (f: FateName | null) => {
    setFate(f);
    setFrom(0);
  };
  return (
    <section className="sv-diff-raw" aria-label="View against raw history">
      <h3>View #{selected} against the raw history</h3>
      {q.state === 'error' && (
        <div className="notice error" role="alert">
          <strong>{q.error.code}</strong> {q.error.message}
        </div>
      )}
      {v && (
        <>
          <div className="sv-fate-counts" role="group" aria-label="Fate counts">
            <button type="button" className={fate === null ? 'active' : ''} onClick={() => choose(null)}>
              all {Object.values(v.counts).reduce((a, b) => a + b, 0)}
            </button>
            {FATE_NAMES.map((f) => (
              <button type="button" key={f} className={fate === f ? 'active' : ''} onClick={() => choose(f)} data-fate={f}>
                <span className={`chip fate-${f}`}>{f}</span> <span className="sv-count">{v.counts[f]}</span>
              </button>
            ))}
          </div>
          <ul className="sv-list sv-fate-rows">
            {v.rows.map((r) => (
              <li key={r.fate.seq}>
                <span className={`chip fate-${r.fate.fate}`} title={fateTitle(r.fate)}>
                  {r.fate.fate}
                </span>{' '}
                <button type="button" className="link" onClick={() => void jumpToSeq(r.fate.seq, selected ?? undefined)}>
                  {r.fate.seq}
                </button>{' '}
                <code>{r.fate.id}</code> {r.kind} · {chars(r.chars)} · <span className="muted">{fateTitle(r.fate)}</span> — {r.preview}
              </li>
            ))}
          </ul>
          <div className="sv-pager">
            <button type="button" disabled={from === 0} onClick={() => setFrom(Math.max(0, from - PAGE))}>
              previous
            </button>
            <span className="muted small">
              {' '}
              {v.total === 0 ? 0 : from + 1}–{Math.min(v.total, from + PAGE)} of {v.total}{' '}
            </span>
            <button type="button" disabled={from + PAGE >= v.total} onClick={() => setFrom(from + PAGE)}>
              next
            </button>
          </div>
        </>
      )}
    </section>
  );
}

/** View N against view M: items added, removed (and what became of them) and changed. */
function ViewVsView(): React.JSX.Element {
  const api = useSession((s) => s.api);
  const sessionId = useSession((s) => s.sessionId);
  const branch = useSession((s) => s.branch);
  const selected = useSession((s) => s.selected);
  const count = useSession((s) => s.requests.length);
  const pickView = useSession((s) => s.pickView);
  const revision = useSession((s) => s.revision);
  const [other, setOther] = useState<string>('');
  const a = other.trim() === '' ? (selected ?? 0) - 1 : Number(other);
  const valid = Number.isInteger(a) && a >= 0 && a < count && selected !== null;
  const q = useQuery(valid && branch !== null ? `${branch}\u0000${a}\u0000${selected}\u0000${revision}` : null, () =>
    api.diffViews({ sessionId, branch: branch ?? undefined, a, b: selected ?? 0, limit: 2000 }),
  );
  const v = valueOf(q);
  return (
    <section className="sv-diff-views" aria-label="View against view">
      <h3>
        View #
        <input
          value={other}
          onChange={(e) => setOther(e.target.value)}
          placeholder={String(Math.max(0, (selected ?? 0) - 1))}
          size={5}
          aria-label="Compare with request"
          inputMode="numeric"
        />{' '}
        against view #{selected}
      </h3>
      {!valid && <p className="muted">Pick another request of this branch (0–{count - 1}).</p>}
      {q.state === 'error' && (
        <div className="notice error" role="alert">
          <strong>{q.error.code}</strong> {q.error.message}
        </div>
      )}
      {v && valid && (
        <>
          <div className="sv-diff-counts" aria-label="Diff counts">
            <span className="added">+{v.counts.added} added</span> · <span className="removed">−{v.counts.removed} removed</span> ·{' '}
            <span className="changed">~{v.counts.changed} changed</span> · {v.counts.same} the same
          </div>
          <ul className="sv-list">
            {v.rows.map((r) => (
              <li key={`${r.change}-${r.id}`} className={`sv-change ${r.change}`}>
                <span className="sv-change-sign">{r.change === 'added' ? '+' : r.change === 'removed' ? '−' : '~'}</span>{' '}
                {r.b !== null ? (
                  <button type="button" className="link" onClick={() => pickView(r.b ?? 0)}>
                    <code>{r.id}</code>
                  </button>
                ) : (
                  <code>{r.id}</code>
                )}{' '}
                {r.kind} · {r.detail} — <span className="muted">{r.preview}</span>
              </li>
            ))}
          </ul>
          {v.truncated && <p className="muted small">Only the first {v.rows.length} changes are listed.</p>}
        </>
      )}
    </section>
  );
}

export function DiffPanel(): React.JSX.Element {
  return (
    <div className="sv-diff">
      <ViewVsRaw />
      <ViewVsView />
    </div>
  );
}
