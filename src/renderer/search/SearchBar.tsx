import { useEffect, useRef } from 'react';
import type { SearchMatch } from '../../shared/api/contract';
import { FOCUS_IDS } from '../app/useShortcuts';
import { useApp, useAppStore } from '../useApp';

/** Wait after the last key before searching as the user types. */
const DEBOUNCE_MS = 250;

function Snippet({ m }: { m: SearchMatch }): React.JSX.Element {
  // Session content: three text nodes, never markup.
  return (
    <span className="snippet">
      {m.snippet.slice(0, m.at)}
      <mark>{m.snippet.slice(m.at, m.at + m.length)}</mark>
      {m.snippet.slice(m.at + m.length)}
    </span>
  );
}

/**
 * Search within the open session (Ctrl/Cmd+F): the query runs in main; each match can send the
 * session view to its raw event or to the first request that shows it. Enter shows the next
 * match, Shift+Enter the previous, Alt+Enter its request; ↑/↓ move; Esc closes.
 */
export function SearchBar(): React.JSX.Element {
  const search = useApp((s) => s.search);
  const setQuery = useApp((s) => s.setQuery);
  const runSearch = useApp((s) => s.runSearch);
  const moveMatch = useApp((s) => s.moveMatch);
  const showMatch = useApp((s) => s.showMatch);
  const closeSearch = useApp((s) => s.closeSearch);
  const searched = useRef<string | null>(null);
  const shown = useRef<number | null>(null);
  const { query, result, loading, error, selected } = search;
  const matches = result?.matches ?? [];
  const list = useRef<HTMLUListElement>(null);
  const store = useAppStore();

  useEffect(() => {
    if (query === searched.current) return;
    const t = setTimeout(() => {
      searched.current = query;
      shown.current = null;
      void runSearch();
    }, DEBOUNCE_MS);
    return () => clearTimeout(t);
  }, [query, runSearch]);

  useEffect(() => {
    list.current?.querySelector('[aria-selected="true"]')?.scrollIntoView({ block: 'nearest' });
  }, [selected]);

  const show = (i: number, target: 'seq' | 'request') => {
    shown.current = i;
    showMatch(i, target);
  };

  const onKey = async (e: React.KeyboardEvent) => {
    if (e.key === 'Escape') {
      closeSearch();
      e.preventDefault();
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      moveMatch(e.key === 'ArrowDown' ? 1 : -1);
      e.preventDefault();
    } else if (e.key === 'Enter') {
      e.preventDefault();
      if (searched.current !== query) {
        searched.current = query;
        shown.current = null;
        await runSearch();
      }
      // Read the store now: this closure's `selected` may be a render old.
      const now = store.getState().search;
      if ((now.result?.matches.length ?? 0) === 0) return;
      if (e.altKey) return show(now.selected, 'request');
      // A second Enter goes on to the next match (Shift: the previous), like find-next.
      if (shown.current === now.selected) moveMatch(e.shiftKey ? -1 : 1);
      show(store.getState().search.selected, 'seq');
    }
  };

  return (
    <section className="search-bar" aria-label="Search in this session">
      <div className="search-row">
        <input
          id={FOCUS_IDS.search}
          type="search"
          aria-label="Search in this session"
          placeholder="Search the raw history and model views"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          onKeyDown={(e) => void onKey(e)}
          spellCheck={false}
          autoComplete="off"
        />
        <span className="muted small search-status" role="status">
          {loading
            ? 'searching…'
            : error
              ? ''
              : result
                ? `${result.total} match${result.total === 1 ? '' : 'es'}${result.truncated ? ` (first ${matches.length} listed)` : ''}`
                : ''}
          {result && result.partial > 0 ? ` · ${result.partial} long texts searched in part only` : ''}
        </span>
        <button type="button" className="link" onClick={closeSearch} aria-label="Close search">
          close
        </button>
      </div>
      {error && (
        <div className="notice error" role="alert">
          <strong>{error.code}</strong> {error.message}
        </div>
      )}
      {matches.length > 0 && (
        <ul className="search-results" role="listbox" aria-label="Matches" ref={list}>
          {matches.map((m, i) => (
            <li key={`${m.seq}:${m.where}:${i}`} role="option" aria-selected={i === selected} className={i === selected ? 'selected' : ''}>
              <button type="button" className="match" onClick={() => show(i, 'seq')} title="Show this event in the raw history">
                <span className="where">
                  seq {m.seq} · {m.where}
                </span>
                <Snippet m={m} />
              </button>
              {m.request !== null && (
                <button type="button" className="link" onClick={() => show(i, 'request')} title="Show the model view of this request">
                  request #{m.request}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
