import { memo } from 'react';
import type { ViewWindowItem } from '../../shared/api/contract';
import { blocksPreview } from '../preview';
import { chars, derivationLabel } from './format';
import type { ItemText } from './store';

/**
 * Every item shows one line until it is opened (a click), so collapsed rows have one height, the
 * one the list assumes before it measures them; items longer than this say so beside their size.
 */
export const LONG_ITEM = 600;

export interface ViewItemProps {
  readonly row: ViewWindowItem;
  readonly picked: boolean;
  readonly highlighted: boolean;
  readonly expanded: ItemText | undefined;
  readonly onPick: (position: number, itemId: string) => void;
  readonly onShowSource: (position: number) => void;
}

function Body({ row, expanded }: { row: ViewWindowItem; expanded: ItemText | undefined }): React.JSX.Element {
  const it = row.item;
  if (it.blocks === null)
    return <div className="text one-line unknown">unknown: masked, and the log does not record what the model saw in its place</div>;
  if (expanded?.state === 'ready') {
    return expanded.text === null || expanded.text === undefined ? (
      <div className="text unknown">unknown: the log does not record this text</div>
    ) : (
      <pre className="text full">{expanded.text}</pre>
    );
  }
  if (expanded?.state === 'error')
    return (
      <div className="sev-error small">
        {expanded.error?.code}: {expanded.error?.message}
      </div>
    );
  const preview = blocksPreview(it.blocks);
  return <div className="text one-line">{preview.text || <span className="muted">(no text)</span>}</div>;
}

/** One item of the model view: what the model saw, its kind and fate tags, and where it came from. */
export const ViewItem = memo(function ViewItem({
  row,
  picked,
  highlighted,
  expanded,
  onPick,
  onShowSource,
}: ViewItemProps): React.JSX.Element {
  const it = row.item;
  const derivation = derivationLabel(it);
  const classes = ['item', `role-${it.role}`, `kind-${it.kind}`];
  if (it.rendition === 'masked') classes.push('masked');
  if (picked) classes.push('picked');
  if (expanded === undefined) classes.push('fixed');
  if (highlighted) classes.push('aligned');
  return (
    <div
      className={classes.join(' ')}
      onClick={() => onPick(row.position, it.id)}
      aria-expanded={expanded !== undefined}
      data-position={row.position}
      data-item={it.id}
    >
      <div className="meta">
        <span className="pos muted">{row.position}</span>
        <span className="role">{it.role}</span>
        <span className="kind">{it.kind}</span>
        <span className={`rendition ${it.rendition}`}>{it.rendition}</span>
        {it.meta && <span className="tag">harness-injected</span>}
        {derivation && <span className="tag derivation">{derivation}</span>}
        <span
          className={`size ${row.chars > LONG_ITEM ? 'sv-collapsed' : 'muted'}`}
          title={row.elided > 0 ? `${chars(row.elided)} are read from the file when opened` : undefined}
        >
          {expanded?.state === 'loading' ? 'reading…' : `${chars(row.chars)}${expanded ? '' : row.chars > LONG_ITEM ? ' · collapsed' : ''}`}
        </span>
        <span className="id muted">{it.id}</span>
        <button
          type="button"
          className="link"
          title="Show the events this item came from in the raw history"
          onClick={(e) => {
            e.stopPropagation();
            onShowSource(row.position);
          }}
        >
          from {it.provenance.length > 4 ? `${it.provenance.slice(0, 3).join(', ')} … (${it.provenance.length})` : it.provenance.join(', ')}
        </button>
      </div>
      <Body row={row} expanded={expanded} />
    </div>
  );
});
