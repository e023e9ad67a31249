import { useVirtualizer } from '@tanstack/react-virtual';
import { useRef, useState } from 'react';
import type { ViewItemRow, ViewOutput } from '../../shared/api/contract';
import { blocksFull, blocksPreview, num } from '../preview';
import { useApp } from '../useApp';

function derivationLabel(it: ViewItemRow): string | null {
  const d = it.derivation;
  if (!d) return null;
  switch (d.kind) {
    case 'checkpoint': return `checkpoint ${d.compactionId} (${d.part}, covers ${d.covers.length})`;
    case 'pruned': return `pruned from ${d.of} (${d.omitted} ${d.unit} omitted)`;
    case 'reinjected': return `re-injected from ${d.of.join(', ')}`;
    case 'marker': return `marker for ${d.of.length} dropped${d.fallback ? ` (${d.fallback})` : ''}`;
  }
}

function RequestSummary({ view }: { view: ViewOutput }): React.JSX.Element {
  const r = view.request;
  const system = view.system === null ? null : blocksPreview(view.system, 300);
  return (
    <div className="view-head">
      <div>
        <strong>#{r.index} {r.id}</strong> at seq {r.seq} · {r.purpose}{r.compactionId ? ` for ${r.compactionId}` : ''} ·{' '}
        {r.provider ?? 'unknown provider'}/{r.model ?? 'unknown model'} · window {num(r.window)}
      </div>
      <div>
        reported input {num(r.reportedInputTokens)} tokens · output {num(r.outputTokens)} · finish{' '}
        {r.finish ? `${r.finish.raw} (${r.finish.reason})` : r.responseSeq === null ? 'unknown (no response in the log)' : 'not recorded'}
        {r.error && <span className="sev-error"> · error {r.error.code ?? ''} {r.error.message}</span>}
      </div>
      <div className="system">
        <span className="label">system</span>{' '}
        {system === null ? <span className="unknown">unknown: the log does not record it</span> : system.text || <span className="muted">(empty)</span>}
      </div>
      <div>
        <span className="label">tools</span>{' '}
        {view.tools === null ? <span className="unknown">unknown: the log does not record them</span> : view.tools.map((t) => t.name).join(', ') || <span className="muted">(none)</span>}
      </div>
      {view.unknowns.length > 0 && (
        <ul className="unknowns" aria-label="Not known from the log">
          {view.unknowns.map((u) => <li key={u}>unknown: {u}</li>)}
        </ul>
      )}
    </div>
  );
}

function ItemRow({ it, expanded, onToggle }: { it: ViewItemRow; expanded: boolean; onToggle: () => void }): React.JSX.Element {
  const revealSeq = useApp((s) => s.revealSeq);
  const preview = it.blocks === null ? null : blocksPreview(it.blocks);
  const derivation = derivationLabel(it);
  return (
    <div className={`item role-${it.role} ${it.rendition === 'masked' ? 'masked' : ''}`} onClick={onToggle} aria-expanded={expanded}>
      <div className="meta">
        <span className="role">{it.role}</span>
        <span className="kind">{it.kind}</span>
        <span className={`rendition ${it.rendition}`}>{it.rendition}</span>
        {it.meta && <span className="tag">harness-injected</span>}
        {derivation && <span className="tag derivation">{derivation}</span>}
        <span className="id muted">{it.id}</span>
        <button
          type="button"
          className="link"
          title="Show the events this item came from in the raw history"
          onClick={(e) => {
            e.stopPropagation();
            revealSeq(it.seq);
          }}
        >
          from {it.provenance.join(', ')}
        </button>
      </div>
      {it.blocks === null ? (
        <div className="text unknown">unknown: masked, and the log does not record what the model saw in its place</div>
      ) : expanded ? (
        <pre className="text full">{blocksFull(it.blocks)}</pre>
      ) : (
        <div className="text clamp">{preview?.text || <span className="muted">(no text)</span>}</div>
      )}
      {preview && preview.elided > 0 && (
        <div className="muted small">{num(preview.elided)} more characters not loaded; tick “full text” to read them from the file</div>
      )}
    </div>
  );
}

export function ModelViewPane(): React.JSX.Element {
  const view = useApp((s) => s.view);
  const viewError = useApp((s) => s.viewError);
  const loading = useApp((s) => s.viewLoading);
  const selected = useApp((s) => s.selected);
  const scroller = useRef<HTMLDivElement>(null);
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const items = view?.items ?? [];
  const virtual = useVirtualizer({
    count: items.length, getScrollElement: () => scroller.current, estimateSize: () => 64, overscan: 8,
    getItemKey: (i) => items[i]?.id ?? i,
  });

  return (
    <section className="pane view" aria-label="Model view" aria-busy={loading}>
      <h2>
        Model view {selected !== null && <span className="muted">at request #{selected}</span>}
        {view && <span className="muted"> · {items.length} items</span>}
        {loading && <span className="muted"> · loading…</span>}
      </h2>
      {viewError && <div className="notice error" role="alert"><strong>{viewError.code}</strong> {viewError.message}</div>}
      {view && <RequestSummary view={view} />}
      <div className="scroll" ref={scroller}>
        {view && items.length === 0 && <p className="muted pad">The model saw no conversation items at this request.</p>}
        <div className="spacer" style={{ height: virtual.getTotalSize() }}>
          {virtual.getVirtualItems().map((v) => {
            const it = items[v.index];
            if (!it) return null;
            return (
              <div key={v.key} data-index={v.index} ref={virtual.measureElement} className="vrow" style={{ transform: `translateY(${v.start}px)` }}>
                <ItemRow
                  it={it}
                  expanded={expanded.has(it.id)}
                  onToggle={() => setExpanded((prev) => {
                    const next = new Set(prev);
                    if (next.has(it.id)) next.delete(it.id);
                    else next.add(it.id);
                    return next;
                  })}
                />
              </div>
            );
          })}
        </div>
      </div>
    </section>
  );
}
