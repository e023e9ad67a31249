import type { AlignRow } from '../../shared/api/contract';
import { useSession } from './context';
import { fateTitle } from './format';
import { RAW_CHUNK, VIEW_CHUNK } from './store';
import { rowAt } from './windows';

function rawWords(a: AlignRow, target: string | null): string {
  if (a.later) return 'written after this request: the model could not have seen it';
  if (!a.onBranch) return 'on another branch than the one shown';
  if (a.fate) {
    const where = target !== null ? ` — shown at view position ${target}` : ' — nothing in this view stands in its place';
    return a.fate.fate === 'verbatim' || a.fate.fate === 'masked' ? `${a.fate.fate}${where}` : `${fateTitle(a.fate)}${where}`;
  }
  if (a.positions.length > 0) return `cited by view position${a.positions.length === 1 ? '' : 's'} ${a.positions.join(', ')}`;
  return 'not part of the conversation the model saw (a header, request, response or record event)';
}

/**
 * What the current pick means, in words: a view item's provenance (each event a link into the raw
 * history), or a raw event's fate at this request and where it is in the view.
 */
export function AlignmentBar(): React.JSX.Element {
  const pickedView = useSession((s) => s.pickedView);
  const pickedRaw = useSession((s) => s.pickedRaw);
  const viewChunks = useSession((s) => s.viewChunks);
  const alignChunks = useSession((s) => s.alignChunks);
  const highlight = useSession((s) => s.viewHighlight);
  const jumpToSeq = useSession((s) => s.jumpToSeq);
  const selected = useSession((s) => s.selected);
  const clear = useSession((s) => s.clearPick);

  let body: React.JSX.Element | string =
    'Pick an item of the model view to see the raw events it came from, or a raw event to see what became of it at this request.';
  if (pickedView !== null) {
    const row = rowAt(viewChunks, VIEW_CHUNK, pickedView);
    if (row) {
      const p = row.item.provenance;
      body = (
        <>
          View position {pickedView} (<code>{row.item.id}</code>, {row.item.kind}) came from {p.length} event{p.length === 1 ? '' : 's'}:{' '}
          {p.slice(0, 40).map((s) => (
            <button type="button" key={s} className="link sv-seq" onClick={() => void jumpToSeq(s, selected ?? undefined)}>
              {s}
            </button>
          ))}
          {p.length > 40 && <span className="muted"> … and {p.length - 40} more</span>}
        </>
      );
    }
  } else if (pickedRaw !== null) {
    const a = rowAt(alignChunks, RAW_CHUNK, pickedRaw);
    const target = highlight.size > 0 ? [...highlight].sort((x, y) => x - y).join(', ') : null;
    body = a ? (
      <>
        Event {pickedRaw}
        {a.item ? (
          <>
            {' '}
            (item <code>{a.item}</code>)
          </>
        ) : null}
        : {rawWords(a, a.target === null ? null : String(a.target))}
      </>
    ) : (
      `Event ${pickedRaw}${target ? ` — view position ${target}` : ''}`
    );
  }
  return (
    <div className="sv-align" role="status" aria-live="polite">
      <span className="sv-align-text">{body}</span>
      {(pickedView !== null || pickedRaw !== null) && (
        <button type="button" className="link" onClick={clear} title="Esc">
          clear
        </button>
      )}
    </div>
  );
}
