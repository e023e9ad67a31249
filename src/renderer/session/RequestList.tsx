import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef } from 'react';
import { useSession } from './context';
import { num } from './format';
import { useRequestMarkers } from './useRequestMarkers';
import { JoinedRequestList } from './JoinedRequestList';

const ROW = 44;

/** Every request of the branch (virtualised), with its compaction and diagnostic marks; with a capture, the joined list. */
export function RequestList(): React.JSX.Element {
  const joined = useSession((s) => s.joined);
  return joined ? <JoinedRequestList /> : <LogRequestList />;
}

function LogRequestList(): React.JSX.Element {
  const requests = useSession((s) => s.requests);
  const selected = useSession((s) => s.selected);
  const select = useSession((s) => s.select);
  const scroller = useRef<HTMLDivElement>(null);
  const virtual = useVirtualizer({
    count: requests.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW,
    overscan: 10,
  });
  const { compactionAt, diagnosticsAt } = useRequestMarkers();

  useEffect(() => {
    if (selected !== null) virtual.scrollToIndex(selected, { align: 'auto' });
  }, [selected, virtual]);

  return (
    <section className="pane requests" aria-label="Requests">
      <h2>
        Requests <span className="muted">({requests.length})</span>
      </h2>
      <div
        className="scroll"
        ref={scroller}
        role="listbox"
        aria-label="Requests"
        aria-activedescendant={selected !== null ? `request-${selected}` : undefined}
        tabIndex={0}
      >
        {requests.length === 0 && <p className="muted pad">This branch has no model requests.</p>}
        <div className="spacer" style={{ height: virtual.getTotalSize() }}>
          {virtual.getVirtualItems().map((v) => {
            const r = requests[v.index];
            if (!r) return null;
            const finish = r.error ? 'error' : (r.finish?.raw ?? 'no response');
            const compaction = compactionAt.get(r.index);
            const diags = diagnosticsAt.get(r.index) ?? 0;
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
                  <span className="model" title={`${r.provider ?? 'unknown provider'}/${r.model ?? 'unknown model'}`}>
                    {r.model ?? 'unknown model'}
                  </span>
                </div>
                <div className="line2 muted">
                  <span>in {num(r.reportedInputTokens)}</span>
                  <span>out {num(r.outputTokens)}</span>
                  <span className={r.error ? 'sev-error' : ''} title={r.error?.message}>
                    {finish}
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
