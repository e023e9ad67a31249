import { useSession } from './context';
import { loadingText, shownText } from './partial';

/** The banner over a first view: "Loading — 12 of 100 MB read", and what the part shown leaves out (./partial.ts). */
export function PartialNotice(): React.JSX.Element | null {
  const info = useSession((s) => s.info);
  const p = info?.partial;
  if (!info || !p) return null;
  return (
    <div className={`sv-partial${p.phase === 'failed' ? ' failed' : ''}`} role="status" aria-live="polite">
      <strong>{loadingText(p)}</strong> {shownText(p, info.counts.requests)}
    </div>
  );
}

/** A panel's line under a first view: its figures are those of the part read so far. */
export function PartialNote({ what }: { readonly what: string }): React.JSX.Element | null {
  const partial = useSession((s) => s.info?.partial);
  if (!partial) return null;
  return <p className="muted small sv-partial-note">{what}</p>;
}
