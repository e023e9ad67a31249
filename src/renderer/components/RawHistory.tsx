import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef } from 'react';
import type { EventRow, FateRow, ViewOutput } from '../../shared/api/contract';
import { eventAt } from '../store';
import { useApp } from '../useApp';
import { FateLegend } from './FateLegend';

const ROW = 24;

function fateTitle(f: FateRow): string {
  switch (f.fate) {
    case 'summarised': return `summarised by ${f.by} (compaction ${f.compactionId})`;
    case 'pruned': return `pruned: ${f.by} stands in its place`;
    case 'dropped': return `dropped (${f.reason})${f.by ? ` by ${f.by}` : ''}`;
    case 'reinjected': return `re-injected by ${f.by}`;
    default: return f.fate;
  }
}

/** The chip of an event in the raw history at the selected request, or null for events that are not items. */
function fateChip(e: EventRow, view: ViewOutput | null, fates: ReadonlyMap<number, FateRow>): React.JSX.Element | null {
  if (!view || e.kind !== 'item') return null;
  if (e.seq >= view.request.seq) return <span className="chip fate-later" title="written after this request">after</span>;
  const f = fates.get(e.seq);
  if (f) return <span className={`chip fate-${f.fate}`} title={fateTitle(f)}>{f.fate}</span>;
  if (e.branch !== view.branch) return <span className="muted small">branch {e.branch}</span>;
  return <span className="chip fate-none" title="the log does not say what became of this event at this request">unknown</span>;
}

export function RawHistory(): React.JSX.Element {
  const total = useApp((s) => s.session?.counts.events ?? 0);
  const chunks = useApp((s) => s.eventChunks);
  const eventsError = useApp((s) => s.eventsError);
  const ensureEvents = useApp((s) => s.ensureEvents);
  const view = useApp((s) => s.view);
  const reveal = useApp((s) => s.reveal);
  const scroller = useRef<HTMLDivElement>(null);
  const virtual = useVirtualizer({ count: total, getScrollElement: () => scroller.current, estimateSize: () => ROW, overscan: 30 });
  const items = virtual.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? -1;

  const fates = useMemo(() => new Map((view?.fates ?? []).map((f) => [f.seq, f])), [view]);
  const provenance = useMemo(() => new Set((view?.items ?? []).flatMap((i) => i.provenance)), [view]);

  useEffect(() => {
    if (last >= first) ensureEvents(first, last);
  }, [first, last, ensureEvents]);

  useEffect(() => {
    if (reveal && reveal.seq < total) virtual.scrollToIndex(reveal.seq, { align: 'center' });
  }, [reveal, total, virtual]);

  return (
    <section className="pane raw" aria-label="Raw history">
      <h2>Raw history <span className="muted">({total} events) · fate of each item at this request</span></h2>
      <FateLegend />
      {eventsError && <div className="notice error" role="alert"><strong>{eventsError.code}</strong> {eventsError.message}</div>}
      <div className="scroll" ref={scroller}>
        <div className="spacer" style={{ height: virtual.getTotalSize() }}>
          {items.map((v) => {
            const e = eventAt(chunks, v.index);
            const classes = ['row', 'event'];
            if (e && view && e.seq === view.request.seq) classes.push('at-request');
            if (e && view && e.seq > view.request.seq) classes.push('later');
            if (e && provenance.has(e.seq)) classes.push('in-view');
            if (reveal && reveal.seq === v.index) classes.push('revealed');
            return (
              <div key={v.key} className={classes.join(' ')} style={{ transform: `translateY(${v.start}px)`, height: ROW }}>
                <span className="seq">{v.index}</span>
                {e ? (
                  <>
                    <span className="kind">{e.kind}</span>
                    <span className="fate">{fateChip(e, view, fates)}</span>
                    <span className="summary" title={`${e.file}:${e.line}`}>{e.summary}</span>
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
