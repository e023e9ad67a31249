import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useRef } from 'react';
import { useScrollOnce } from './scroll-once';
import type { AlignRow, EventRow } from '../../shared/api/contract';
import { useSession } from './context';
import { FateLegend } from './FateLegend';
import { fateTitle } from './format';
import { RAW_CHUNK } from './store';
import { rowAt } from './windows';

const ROW = 24;

/** The fate chip of a raw event at the selected request; null for events that create no item. */
function FateChip({ e, a }: { e: EventRow; a: AlignRow | undefined }): React.JSX.Element | null {
  if (e.kind !== 'item' || !a) return null;
  if (a.later)
    return (
      <span className="chip fate-later" title="written after this request">
        after
      </span>
    );
  if (a.fate)
    return (
      <span className={`chip fate-${a.fate.fate}`} title={fateTitle(a.fate)}>
        {a.fate.fate}
      </span>
    );
  if (!a.onBranch) return <span className="muted small">branch {e.branch}</span>;
  if (a.item === null)
    return (
      <span className="muted small" title="adds to an earlier item">
        extends
      </span>
    );
  return (
    <span className="chip fate-none" title="the log does not say what became of this event at this request">
      unknown
    </span>
  );
}

/**
 * Every event of the session in log order (virtualised, fetched in windows), each item with its
 * fate at the selected request. Events the view cites are marked; picking one shows where it went.
 */
export function RawHistory(): React.JSX.Element {
  const total = useSession((s) => s.info?.counts.events ?? 0);
  const events = useSession((s) => s.eventChunks);
  const aligns = useSession((s) => s.alignChunks);
  const error = useSession((s) => s.windowError);
  const ensureRaw = useSession((s) => s.ensureRaw);
  const head = useSession((s) => s.head);
  const highlight = useSession((s) => s.rawHighlight);
  const picked = useSession((s) => s.pickedRaw);
  const scrollRaw = useSession((s) => s.scrollRaw);
  const pickRaw = useSession((s) => s.pickRaw);
  const scroller = useRef<HTMLDivElement>(null);
  const virtual = useVirtualizer({ count: total, getScrollElement: () => scroller.current, estimateSize: () => ROW, overscan: 30 });
  const rows = virtual.getVirtualItems();
  const first = rows[0]?.index ?? 0;
  const last = rows[rows.length - 1]?.index ?? -1;
  const requestSeq = head?.request.seq ?? null;

  // `total`: events appended (Follow) leave the rows in view to be asked for again.
  useEffect(() => {
    if (last >= first) ensureRaw(first, last);
  }, [first, last, ensureRaw, head, total]);

  const scrollTo = useCallback((seq: number) => virtual.scrollToIndex(seq, { align: 'center' }), [virtual]);
  useScrollOnce(scrollRaw, scrollRaw?.seq ?? null, total, scrollTo);

  return (
    <section className="pane raw" aria-label="Raw history">
      <h2>
        Raw history <span className="muted">({total} events) · fate of each item at this request</span>
      </h2>
      <FateLegend counts={head?.fates} />
      {error && (
        <div className="notice error" role="alert">
          <strong>{error.code}</strong> {error.message}
        </div>
      )}
      <div className="scroll" ref={scroller}>
        <div className="spacer" style={{ height: virtual.getTotalSize() }}>
          {rows.map((v) => {
            const e = rowAt(events, RAW_CHUNK, v.index);
            const a = rowAt(aligns, RAW_CHUNK, v.index);
            const classes = ['row', 'event'];
            if (requestSeq !== null && v.index === requestSeq) classes.push('at-request');
            if (requestSeq !== null && v.index > requestSeq) classes.push('later');
            if (a && a.positions.length > 0) classes.push('in-view');
            if (a && !a.onBranch) classes.push('off-branch');
            if (highlight.has(v.index)) classes.push('aligned');
            if (picked === v.index) classes.push('picked');
            return (
              <div
                key={v.key}
                className={classes.join(' ')}
                style={{ transform: `translateY(${v.start}px)`, height: ROW }}
                onClick={() => void pickRaw(v.index)}
                data-seq={v.index}
              >
                <span className="seq">{v.index}</span>
                {e ? (
                  <>
                    <span className="kind">{e.kind}</span>
                    <span className="fate">
                      <FateChip e={e} a={a} />
                    </span>
                    <span className="summary" title={`${e.file}:${e.line}`}>
                      {e.summary}
                    </span>
                  </>
                ) : (
                  <span className="muted">…</span>
                )}
              </div>
            );
          })}
        </div>
      </div>
    </section>
  );
}
