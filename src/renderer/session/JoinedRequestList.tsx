import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef } from 'react';
import { useSession } from './context';
import { num } from './format';
import { useRequestMarkers } from './useRequestMarkers';
import { WireBadge } from './WireBadge';

const ROW = 44;

/**
 * The request list of a session joined with a capture: every request the log or the wire knows, in
 * the order they happened, each with where it is known from (./WireBadge.tsx). A failed wire-only
 * attempt is marked as an error; marks of compactions and diagnostics sit on the log's requests.
 */
export function JoinedRequestList(): React.JSX.Element {
  const joined = useSession((s) => s.joined);
  const selectedRow = useSession((s) => s.selectedRow);
  const selectRow = useSession((s) => s.selectRow);
  const rows = joined?.rows ?? [];
  const scroller = useRef<HTMLDivElement>(null);
  const virtual = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => ROW, overscan: 10 });
  const { compactionAt, diagnosticsAt } = useRequestMarkers();

  useEffect(() => {
    if (selectedRow !== null) virtual.scrollToIndex(selectedRow, { align: 'auto' });
  }, [selectedRow, virtual]);

  return (
    <section className="pane requests" aria-label="Requests">
      <h2>
        Requests <span className="muted">({rows.length}, with the capture)</span>
      </h2>
      <div
        className="scroll"
        ref={scroller}
        role="listbox"
        aria-label="Requests"
        aria-activedescendant={selectedRow !== null ? `joined-${selectedRow}` : undefined}
        tabIndex={0}
      >
        <div className="spacer" style={{ height: virtual.getTotalSize() }}>
          {virtual.getVirtualItems().map((v) => {
            const r = rows[v.index];
            if (!r) return null;
            const failed = r.error !== null || (r.status !== null && r.status >= 400);
            const finish = r.error ? 'error' : (r.finish?.raw ?? 'no response');
            const compaction = r.logIndex === null ? undefined : compactionAt.get(r.logIndex);
            const diags = r.logIndex === null ? 0 : (diagnosticsAt.get(r.logIndex) ?? 0);
            const input = r.usage ? (r.usage.context ?? (r.usage.input ?? 0) + (r.usage.cacheRead ?? 0) + (r.usage.cacheWrite ?? 0)) : null;
            return (
              <div
                key={v.key}
                id={`joined-${r.index}`}
                role="option"
                aria-selected={r.index === selectedRow}
                data-source={r.source}
                className={`row request ${r.index === selectedRow ? 'selected' : ''} purpose-${r.purpose} source-${r.source} ${failed ? 'has-error' : ''}`}
                style={{ transform: `translateY(${v.start}px)`, height: ROW }}
                onClick={() => void selectRow(r.index)}
              >
                <div className="line1">
                  <span className="idx">#{r.index}</span>
                  <span className="purpose">{r.purpose}</span>
                  <WireBadge row={r} />
                  {compaction && (
                    <span className="sv-mark compaction" title={`first view after ${compaction.label}`}>
                      ◆ {compaction.id}
                    </span>
                  )}
                  {diags > 0 && (
                    <span className="sv-mark diagnostic" title={`${diags} diagnostic${diags === 1 ? '' : 's'} first visible here`}>
                      ! {diags}
                    </span>
                  )}
                  <span className="model">{r.model ?? 'unknown model'}</span>
                </div>
                <div className="line2 muted">
                  {r.logIndex !== null && <span>log #{r.logIndex}</span>}
                  <span>in {num(input)}</span>
                  <span>out {num(r.usage?.output ?? null)}</span>
                  <span className={failed ? 'sev-error' : ''} title={r.error?.message}>
                    {r.error ? `error: ${r.error.message}` : finish}
                  </span>
                </div>
              </div>
            );
          })}
        </div>
      </div>
    </section>
  );
}
