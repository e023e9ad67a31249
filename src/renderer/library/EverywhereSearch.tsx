import type { LibraryHit } from '../../shared/api/contract';
import { LibraryHarness } from '../../shared/api/contract';
import { useApp } from '../useApp';
import { baseName } from './format';
import { grouped } from '../../shared/grouped';

/** The snippet with its matching words marked: session content, text nodes only, never markup. */
function Snippet({ hit }: { hit: LibraryHit }): React.JSX.Element {
  const parts: React.JSX.Element[] = [];
  let at = 0;
  hit.marks.forEach((m, i) => {
    parts.push(<span key={`t${i}`}>{hit.snippet.slice(at, m.at)}</span>);
    parts.push(<mark key={`m${i}`}>{hit.snippet.slice(m.at, m.at + m.length)}</mark>);
    at = m.at + m.length;
  });
  parts.push(<span key="end">{hit.snippet.slice(at)}</span>);
  return <span className="snippet">{parts}</span>;
}

/** What became of the item by the session's latest request, in words. */
export function fateWords(fate: string | null): string {
  return fate === null ? 'made after the latest request' : `${fate} at the latest request`;
}

/** What a capped answer says after the count (search.ts ranks at most that many matches); '' when every match was ranked. */
export function cappedWords(capped: number | null): string {
  if (capped === null) return '';
  const n = grouped(capped);
  return `; more than ${n} matched: these are the best of the ${n} indexed last, not of all — narrow the query or add a filter`;
}

/**
 * Search every session on this machine (docs/search.md): words, "phrases", prefix*; filters by
 * harness, compactions or findings and time. A hit opens its session at the first request that
 * shows the item, with the item's event selected in the raw history.
 */
export function EverywhereSearch(): React.JSX.Element {
  const e = useApp((s) => s.everywhere);
  const setEverywhere = useApp((s) => s.setEverywhere);
  const searchEverywhere = useApp((s) => s.searchEverywhere);
  const openHit = useApp((s) => s.openHit);
  const hits = e.result?.hits ?? [];
  return (
    <section className="everywhere" aria-labelledby="everywhere-title">
      <h2 id="everywhere-title">Search all sessions</h2>
      <form
        className="everywhere-form"
        onSubmit={(ev) => {
          ev.preventDefault();
          void searchEverywhere();
        }}
      >
        <input
          type="search"
          aria-label="Search all sessions"
          placeholder='words, "a phrase", prefix*'
          value={e.query}
          onChange={(ev) => setEverywhere({ query: ev.target.value })}
        />
        <select
          aria-label="Search in harness"
          value={e.harness}
          onChange={(ev) => setEverywhere({ harness: ev.target.value as LibraryHarness | 'all' })}
        >
          <option value="all">every harness</option>
          {LibraryHarness.options.map((h) => (
            <option key={h} value={h}>
              {h}
            </option>
          ))}
        </select>
        <select
          aria-label="Sessions with"
          value={e.has}
          onChange={(ev) => setEverywhere({ has: ev.target.value as 'compaction' | 'finding' | 'any' })}
        >
          <option value="any">any session</option>
          <option value="compaction">with a compaction</option>
          <option value="finding">with a finding</option>
        </select>
        <input
          aria-label="Since"
          placeholder="since (7d, 2026-02-01)"
          value={e.since}
          onChange={(ev) => setEverywhere({ since: ev.target.value })}
        />
        <button type="submit" disabled={e.loading}>
          Search
        </button>
      </form>
      {e.loading && (
        <p className="muted" role="status">
          Searching; sessions new or changed since the last search are indexed first…
        </p>
      )}
      {e.error && (
        <p className="notice error" role="alert">
          {e.error.message}
        </p>
      )}
      {e.result && !e.loading && (
        <p className="muted small" role="status">
          {hits.length === 0 ? 'No matches' : `${hits.length} match${hits.length === 1 ? '' : 'es'}`} in {e.result.sessions} sessions
          {e.result.read > 0 ? ` (${e.result.read} indexed now)` : ''}
          {cappedWords(e.result.capped)}
        </p>
      )}
      {hits.length > 0 && (
        <ul className="everywhere-hits plain-list" aria-label="Matches in all sessions">
          {hits.map((h) => (
            <li key={`${h.path}\u0000${h.session ?? ''}\u0000${h.item}`} data-seq={h.seq} data-request={h.request ?? undefined}>
              <button type="button" className="link" title={h.path} onClick={() => void openHit(h)}>
                {baseName(h.path)}
              </button>{' '}
              <span className="tag">{h.harness}</span>{' '}
              <span className="muted small">
                {h.request === null ? 'after the last request' : `request ${h.request}`} · {h.kind} ·{' '}
                <span className={`fate fate-${h.fate ?? 'none'}`}>{fateWords(h.fate)}</span>
              </span>
              <div className="small">
                <Snippet hit={h} />
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
