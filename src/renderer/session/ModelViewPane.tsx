import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useLayoutEffect, useRef } from 'react';
import { useScrollOnce } from './scroll-once';
import { useSession } from './context';
import { VIEW_CHUNK } from './store';
import { ViewHeadBox } from './ViewHeadBox';
import { ViewItem } from './ViewItem';
import { rowAt } from './windows';

/** Height of a closed item or a placeholder (CSS `.item.fixed`): the size assumed until a row is measured. */
export const ROW = 52;

/**
 * The model view at the selected request, virtualised: only the rows on screen exist, and their
 * items are fetched in windows as they come into view. Picking an item highlights the raw events it
 * came from; picking a raw event highlights and scrolls here to where it is, or what stands in its place.
 */
export function ModelViewPane(): React.JSX.Element {
  const head = useSession((s) => s.head);
  const headError = useSession((s) => s.headError);
  const selected = useSession((s) => s.selected);
  const chunks = useSession((s) => s.viewChunks);
  const ensureView = useSession((s) => s.ensureView);
  const picked = useSession((s) => s.pickedView);
  const highlight = useSession((s) => s.viewHighlight);
  const expanded = useSession((s) => s.expanded);
  const scrollView = useSession((s) => s.scrollView);
  const pickView = useSession((s) => s.pickView);
  const toggleExpand = useSession((s) => s.toggleExpand);
  const scroller = useRef<HTMLDivElement>(null);
  const loading = head === null || head.request.index !== selected;
  const total = head?.items ?? 0;
  const virtual = useVirtualizer({ count: total, getScrollElement: () => scroller.current, estimateSize: () => ROW, overscan: 6 });
  const rows = virtual.getVirtualItems();
  const first = rows[0]?.index ?? 0;
  const last = rows[rows.length - 1]?.index ?? -1;

  useEffect(() => {
    if (last >= first) ensureView(first, last);
  }, [first, last, ensureView, head]);

  // Another request puts other items at the same positions: drop the sizes measured for the old
  // ones. This is safe only because every row is a closed placeholder at this point (the store
  // empties the view's windows and closes all items when it selects), so each is at the estimated
  // height until the ResizeObserver reports otherwise. Opening or closing an item needs no call:
  // clearing sizes then would forget open rows whose height does not change again, and the
  // observer already reports the rows that do change.
  useLayoutEffect(() => {
    virtual.measure();
  }, [selected, virtual]);

  const scrollTo = useCallback((position: number) => virtual.scrollToIndex(position, { align: 'center' }), [virtual]);
  useScrollOnce(scrollView, scrollView?.position ?? null, total, scrollTo);

  const onPick = useCallback(
    (position: number, itemId: string) => {
      pickView(position);
      toggleExpand(itemId);
    },
    [pickView, toggleExpand],
  );

  return (
    <section className="pane view" aria-label="Model view" aria-busy={loading}>
      <h2>
        Model view {selected !== null && <span className="muted">at request #{selected}</span>}
        {head && <span className="muted"> · {total} items</span>}
        {loading && !headError && <span className="muted"> · loading…</span>}
      </h2>
      {headError && (
        <div className="notice error" role="alert">
          <strong>{headError.code}</strong> {headError.message}
        </div>
      )}
      <ViewHeadBox />
      <div className="scroll" ref={scroller}>
        {head && total === 0 && <p className="muted pad">The model saw no conversation items at this request.</p>}
        <div className="spacer" style={{ height: virtual.getTotalSize() }}>
          {rows.map((v) => {
            const row = rowAt(chunks, VIEW_CHUNK, v.index);
            return (
              // Every row is measured and observed, open or not: an item's height changes when it
              // opens, when its text arrives, when it closes, and when a placeholder becomes an item.
              <div
                key={v.key}
                data-index={v.index}
                ref={virtual.measureElement}
                className="vrow"
                style={{ transform: `translateY(${v.start}px)` }}
              >
                {row ? (
                  <ViewItem
                    row={row}
                    picked={picked === v.index}
                    highlighted={highlight.has(v.index)}
                    expanded={expanded[row.item.id]}
                    onPick={onPick}
                    onShowSource={pickView}
                  />
                ) : (
                  <div className="item fixed placeholder muted">{v.index} …</div>
                )}
              </div>
            );
          })}
        </div>
      </div>
    </section>
  );
}
