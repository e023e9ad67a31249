import { useMemo } from 'react';
import { chars } from '../format';
import { textDiff } from '../textdiff';

/** Two texts as one, with what was removed struck through and what was added underlined. */
export function TextDiffView({
  before,
  after,
  beforeLabel,
  afterLabel,
}: {
  before: string;
  after: string;
  beforeLabel: string;
  afterLabel: string;
}): React.JSX.Element {
  const d = useMemo(() => textDiff(before, after), [before, after]);
  return (
    <div className="sv-textdiff">
      <div className="muted small">
        <del>{beforeLabel}</del> → <ins>{afterLabel}</ins> · by {d.by} · {chars(d.removed)} removed, {chars(d.added)} added
      </div>
      <pre className="sv-pre">
        {d.parts.map((p, i) =>
          p.kind === 'same' ? (
            <span key={i}>{p.text}</span>
          ) : p.kind === 'added' ? (
            <ins key={i}>{p.text}</ins>
          ) : (
            <del key={i}>{p.text}</del>
          ),
        )}
      </pre>
    </div>
  );
}
