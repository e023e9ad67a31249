import { blocksFull, blocksPreview } from '../preview';
import { useSession } from './context';
import { ms, num } from './format';
import { WireBadge } from './WireBadge';

/** Items shown at once: a wire-only request comes whole, not in windows. */
const MAX_ITEMS = 500;

/**
 * The exact view of a request only the capture has (a failed or retried attempt): the system
 * prompt, the tools and the items as they were sent, and what came back (the model's output, or
 * the error). Shown in place of the model view while such a request is selected. Everything here
 * is captured content: rendered as text, never as markup.
 */
export function WireViewPane(): React.JSX.Element | null {
  const wire = useSession((s) => s.wire);
  if (!wire) return null;
  const v = wire.value;
  const view = v?.view ?? null;
  const items = view?.items ?? [];
  return (
    <section className="pane view wire-view" aria-label="Model view" aria-busy={wire.state === 'loading'}>
      <h2>
        Model view <span className="muted">at request #{wire.index}, from the wire</span>
        {view && <span className="muted"> · {items.length} items</span>}
        {wire.state === 'loading' && <span className="muted"> · loading…</span>}
      </h2>
      {wire.state === 'error' && (
        <div className="notice error" role="alert">
          <strong>{wire.error?.code}</strong> {wire.error?.message}
        </div>
      )}
      {v && (
        <div className="scroll pad">
          <div className="sv-wire-head">
            <WireBadge row={v.request} /> {v.request.purpose} · {v.request.purposeWhy}
            {v.http && (
              <>
                {' '}
                · {v.http.method} {v.http.path} · {v.http.status === null ? 'no response' : `HTTP ${v.http.status}`}
              </>
            )}
            {v.request.durationMs !== null && <> · {ms(v.request.durationMs)}</>}
            {v.request.retryOf !== null && <> · retry of #{v.request.retryOf}</>}
            {v.request.capture && (
              <div className="muted small">
                {v.request.capture.path}
                {v.request.capture.line !== null ? `:${v.request.capture.line}` : ''}
              </div>
            )}
          </div>
          {v.request.error && (
            <div className="notice error" role="alert">
              {v.request.error.code ?? 'error'}: {v.request.error.message}
            </div>
          )}
          <h3>Returned</h3>
          <WireOutputBox />
          <h3>Sent</h3>
          {!view && <p className="unknown">unknown: the capture does not hold this request's body</p>}
          {view && (
            <>
              <details>
                <summary>system prompt {view.system === null ? '(unknown)' : `(${num(blocksFull(view.system).length)} chars)`}</summary>
                {view.system && <pre className="sv-pre">{blocksFull(view.system)}</pre>}
              </details>
              <div className="muted small">
                tools: {view.tools === null ? 'unknown' : view.tools.map((t) => t.name).join(', ') || 'none'}
              </div>
              <ol className="sv-wire-items" start={0}>
                {items.slice(0, MAX_ITEMS).map((it, i) => (
                  <li key={`${it.id}-${i}`} className={`item role-${it.role} kind-${it.kind}`}>
                    <details>
                      <summary>
                        <span className="kind">{it.kind}</span>{' '}
                        {it.blocks === null ? <span className="unknown">unknown</span> : blocksPreview(it.blocks, 160).text}
                      </summary>
                      {it.blocks && <pre className="sv-pre">{blocksFull(it.blocks)}</pre>}
                    </details>
                  </li>
                ))}
              </ol>
              {items.length > MAX_ITEMS && <p className="muted">{items.length - MAX_ITEMS} more items not shown.</p>}
            </>
          )}
        </div>
      )}
    </section>
  );
}

/** What the model wrote, as the wire carried it back. */
export function WireOutputBox(): React.JSX.Element {
  const out = useSession((s) => s.wire?.value?.output ?? null);
  const req = useSession((s) => s.wire?.value?.request ?? null);
  if (!out) return <p className="muted">{req?.error ? 'Nothing came back but the error.' : 'Nothing came back on the wire.'}</p>;
  return (
    <div className="sv-wire-output">
      {req?.finish && (
        <div className="muted small">
          finish {req.finish.raw}
          {req.usage ? ` · ${num(req.usage.input ?? null)} in / ${num(req.usage.output ?? null)} out` : ''}
        </div>
      )}
      {out.reasoning && (
        <details>
          <summary>reasoning ({num(out.reasoning.length)} chars)</summary>
          <pre className="sv-pre">{out.reasoning}</pre>
        </details>
      )}
      <pre className="sv-pre sv-summary-text" aria-label="Output text">
        {out.text || '(no text)'}
      </pre>
      {out.toolCalls.map((t) => (
        <div key={t.id} className="small">
          <code>{t.name}</code> <pre className="sv-pre">{t.input}</pre>
        </div>
      ))}
    </div>
  );
}
