import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef } from 'react';
import { num } from '../preview';
import { useApp } from '../useApp';

const ROW = 44;

export function RequestList(): React.JSX.Element {
  const requests = useApp((s) => s.requests);
  const selected = useApp((s) => s.selected);
  const select = useApp((s) => s.select);
  const scroller = useRef<HTMLDivElement>(null);
  const virtual = useVirtualizer({ count: requests.length, getScrollElement: () => scroller.current, estimateSize: () => ROW, overscan: 10 });

  useEffect(() => {
    if (selected !== null) virtual.scrollToIndex(selected, { align: 'auto' });
  }, [selected, virtual]);

  return (
    <section className="pane requests" aria-label="Requests">
      <h2>Requests <span className="muted">({requests.length}) · ↑/↓ or j/k</span></h2>
      <div className="scroll" ref={scroller} role="listbox" aria-label="Requests" aria-activedescendant={selected !== null ? `request-${selected}` : undefined} tabIndex={0}>
        {requests.length === 0 && <p className="muted pad">This branch has no model requests.</p>}
        <div className="spacer" style={{ height: virtual.getTotalSize() }}>
          {virtual.getVirtualItems().map((v) => {
            const r = requests[v.index];
            if (!r) return null;
            const finish = r.error ? 'error' : (r.finish?.raw ?? 'no response');
            return (
              <div
                key={v.key}
                id={`request-${r.index}`}
                role="option"
                aria-selected={r.index === selected}
                className={`row request ${r.index === selected ? 'selected' : ''} purpose-${r.purpose} ${r.error ? 'has-error' : ''}`}
                style={{ transform: `translateY(${v.start}px)`, height: ROW }}
                onClick={() => void select(r.index)}
              >
                <div className="line1">
                  <span className="idx">#{r.index}</span>
                  <span className="purpose">{r.purpose}</span>
                  <span className="model" title={`${r.provider ?? 'unknown provider'}/${r.model ?? 'unknown model'}`}>{r.model ?? 'unknown model'}</span>
                </div>
                <div className="line2 muted">
                  <span>in {num(r.reportedInputTokens)}</span>
                  <span>out {num(r.outputTokens)}</span>
                  <span className={r.error ? 'sev-error' : ''} title={r.error?.message}>{finish}</span>
                </div>
              </div>
            );
          })}
        </div>
      </div>
    </section>
  );
}
