import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { DiscoveredSession } from '../../shared/api/contract';
import { FOCUS_IDS } from '../app/useShortcuts';
import { useApp } from '../useApp';
import { filterSessions, harnessCounts } from './filter';
import { baseName, bytes, counted, isLive, when } from './format';
import { useReach, useReachByKeyboard } from './reach';
import type { RecentEntry } from './recent';

const ROW = 48;

/** The session to read from the row's path: a database of OpenCode holds many, told apart by id. */
const sessionOf = (s: DiscoveredSession): string | undefined => (s.harness === 'opencode' && s.id !== null ? s.id : undefined);

function diagnosticsText(s: DiscoveredSession, recent: RecentEntry | undefined): { text: string; cls: string; title: string } {
  if (recent) {
    const words = { error: 'errors', warning: 'warnings', info: 'info only', none: 'no findings' }[recent.worst];
    return { text: `diagnostics: ${words}`, cls: `sev-${recent.worst}`, title: `When it was last opened (${when(recent.openedAt)})` };
  }
  return { text: 'diagnostics unknown', cls: 'unknown', title: 'A scan does not run the diagnostics: open the session to run them' };
}

function Row({ s, recent }: { s: DiscoveredSession; recent: RecentEntry | undefined }): React.JSX.Element {
  const d = diagnosticsText(s, recent);
  const name = s.title ?? baseName(s.path);
  return (
    <>
      <div className="line1">
        <span className={`tag harness h-${s.harness ?? 'unknown'}`}>{s.harness ?? 'unknown format'}</span>
        <span className="name" title={s.title ?? undefined}>
          {name}
        </span>
        {isLive(s.modifiedAt, Date.now()) && (
          <span
            className="tag live"
            title="written to in the last few minutes: its harness may still be at work; open it and turn on Follow"
          >
            live
          </span>
        )}
        {s.capture && (
          <span className="tag capture" title="a capture of its wire traffic lies beside it: opening joins it">
            capture
          </span>
        )}
        {s.project && (
          <span className="muted project" title={s.project}>
            {baseName(s.project)}
          </span>
        )}
      </div>
      <div className="line2 muted small">
        <span>{when(s.startedAt ?? s.modifiedAt)}</span>
        <span>{counted(s.requests, 'request')}</span>
        <span>{counted(s.compactions, 'compaction')}</span>
        <span>{bytes(s.bytes)}</span>
        <span className={d.cls} title={d.title}>
          {d.text}
        </span>
        {s.badLines > 0 && <span className="sev-warning">{s.badLines} unreadable lines</span>}
        {s.problems.length > 0 && (
          <span className="sev-warning" title={s.problems.join('\n')}>
            {s.problems.length} problem{s.problems.length === 1 ? '' : 's'}
          </span>
        )}
        <span className="path" title={s.path}>
          {s.path}
        </span>
      </div>
    </>
  );
}

/** The sessions discovered on this machine and in the host's folders: filter, chips per harness, a keyboard-driven list. */
export function SessionList(): React.JSX.Element {
  const discovery = useApp((s) => s.discovery);
  const discovering = useApp((s) => s.discovering);
  const discoveryError = useApp((s) => s.discoveryError);
  const filter = useApp((s) => s.filter);
  const harness = useApp((s) => s.harness);
  const recent = useApp((s) => s.recent);
  const setFilter = useApp((s) => s.setFilter);
  const setHarness = useApp((s) => s.setHarness);
  const discover = useApp((s) => s.discover);
  const openPath = useApp((s) => s.openPath);
  const reach = useReach();

  // Memoised so that, with nothing discovered yet, the empty fallback is one array, not a new one each render.
  const all = useMemo(() => discovery?.sessions ?? [], [discovery]);
  const shown = useMemo(() => filterSessions(all, filter, harness), [all, filter, harness]);
  const chips = useMemo(() => harnessCounts(all), [all]);
  const recentByPath = useMemo(() => new Map(recent.map((r) => [r.path, r])), [recent]);
  const [cursor, setCursor] = useState(0);
  const scroller = useRef<HTMLDivElement>(null);
  const virtual = useVirtualizer({ count: shown.length, getScrollElement: () => scroller.current, estimateSize: () => ROW, overscan: 10 });

  useEffect(() => setCursor(0), [filter, harness]);
  const picked = shown[cursor];
  const listFocused = useCallback(() => document.activeElement === scroller.current, []);
  useReachByKeyboard(picked?.path ?? null, picked ? sessionOf(picked) : undefined, listFocused);
  useEffect(() => {
    if (shown.length > 0) virtual.scrollToIndex(Math.min(cursor, shown.length - 1), { align: 'auto' });
  }, [cursor, shown.length, virtual]);

  const onKey = (e: React.KeyboardEvent) => {
    const last = shown.length - 1;
    const moves: Record<string, number> = {
      ArrowDown: cursor + 1,
      ArrowUp: cursor - 1,
      Home: 0,
      End: last,
      PageDown: cursor + 10,
      PageUp: cursor - 10,
      j: cursor + 1,
      k: cursor - 1,
    };
    if (e.key in moves && !e.altKey && !e.ctrlKey && !e.metaKey) {
      setCursor(Math.max(0, Math.min(last, moves[e.key] as number)));
      e.preventDefault();
    } else if (e.key === 'Enter' && shown[cursor]) {
      void openPath(shown[cursor].path, sessionOf(shown[cursor]));
      e.preventDefault();
    }
  };
  // From the filter box, ↓ goes into the list.
  const onFilterKey = (e: React.KeyboardEvent) => {
    if (e.key === 'ArrowDown' || e.key === 'Enter') {
      scroller.current?.focus();
      e.preventDefault();
    }
  };

  return (
    <section className="discovered" aria-labelledby="discovered-title">
      <div className="discovered-head">
        <h2 id="discovered-title">
          Sessions <span className="muted">({shown.length === all.length ? all.length : `${shown.length} of ${all.length}`})</span>
        </h2>
        <input
          id={FOCUS_IDS.filter}
          type="search"
          aria-label="Filter sessions"
          placeholder="Filter: path, project, title, model…  ( / )"
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
          onKeyDown={onFilterKey}
        />
        <button type="button" onClick={() => void discover(true)} disabled={discovering}>
          {discovering ? 'Looking…' : 'Refresh'}
        </button>
      </div>
      <div className="chips" role="group" aria-label="Harness">
        {[['all', all.length] as const, ...chips].map(([h, n]) => (
          <button
            key={h}
            type="button"
            className={`chip-button ${harness === h ? 'on' : ''}`}
            aria-pressed={harness === h}
            onClick={() => setHarness(h)}
          >
            {h === 'unknown' ? 'unknown format' : h} <span className="muted">{n}</span>
          </button>
        ))}
      </div>
      {discoveryError && (
        <div className="notice error" role="alert">
          <strong>{discoveryError.code}</strong> {discoveryError.message}
        </div>
      )}
      {discovery?.truncated && <p className="muted small pad">Only the newest {all.length} sessions are listed.</p>}
      <div
        className="scroll session-list"
        ref={scroller}
        role="listbox"
        aria-label="Sessions"
        tabIndex={0}
        aria-activedescendant={shown[cursor] ? `lib-row-${cursor}` : undefined}
        onKeyDown={onKey}
      >
        {!discovery && discovering && (
          <p className="muted pad" role="status">
            Looking for sessions…
          </p>
        )}
        {discovery && all.length === 0 && (
          <p className="muted pad">No session found on this machine or in the folders given. Open one by its path.</p>
        )}
        {all.length > 0 && shown.length === 0 && <p className="muted pad">No session matches the filter.</p>}
        <div className="spacer" style={{ height: virtual.getTotalSize() }}>
          {virtual.getVirtualItems().map((v) => {
            const s = shown[v.index];
            if (!s) return null;
            return (
              <div
                key={s.harness === 'opencode' ? `${s.path}\u0000${s.id ?? ''}` : s.path}
                id={`lib-row-${v.index}`}
                role="option"
                aria-selected={v.index === cursor}
                className={`row lib-row ${v.index === cursor ? 'selected' : ''}`}
                style={{ transform: `translateY(${v.start}px)`, height: ROW }}
                onClick={() => {
                  setCursor(v.index);
                  void openPath(s.path, sessionOf(s));
                }}
                {...reach(s.path, sessionOf(s))}
              >
                <Row s={s} recent={recentByPath.get(s.path)} />
              </div>
            );
          })}
        </div>
      </div>
    </section>
  );
}
