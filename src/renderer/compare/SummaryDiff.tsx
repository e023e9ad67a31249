import type { CompareRow } from '../../shared/api/contract';

/**
 * A summary's line diff against the original's (computed in main by jsdiff): added lines green
 * with "+", removed lines red with "−", long unchanged stretches folded. Text only: summaries are
 * session content or a model's output, never markup.
 */

type Part = NonNullable<CompareRow['diff']>[number];

interface Line {
  readonly op: Part['op'];
  readonly text: string;
}

/** Unchanged runs longer than this keep CONTEXT lines at each end. */
const FOLD = 8;
const CONTEXT = 3;

function lines(parts: readonly Part[]): Line[] {
  const out: Line[] = [];
  for (const p of parts) {
    const ls = p.text.endsWith('\n') ? p.text.slice(0, -1).split('\n') : p.text.split('\n');
    for (const text of ls) out.push({ op: p.op, text });
  }
  return out;
}

type Shown = Line | { readonly op: 'fold'; readonly count: number };

export function foldLines(all: readonly Line[]): Shown[] {
  const out: Shown[] = [];
  let i = 0;
  while (i < all.length) {
    let j = i;
    while (j < all.length && all[j]?.op === 'same') j++;
    const run = j - i;
    if (run > FOLD) {
      out.push(...all.slice(i, i + CONTEXT), { op: 'fold', count: run - 2 * CONTEXT }, ...all.slice(j - CONTEXT, j));
    } else {
      out.push(...all.slice(i, j));
    }
    if (j < all.length) out.push(all[j] as Line);
    i = j + 1;
  }
  return out;
}

const MARK: Record<Part['op'], string> = { same: ' ', added: '+', removed: '−' };

export function SummaryDiff({ label, parts }: { label: string; parts: readonly Part[] }): React.JSX.Element {
  const all = lines(parts);
  const added = all.filter((l) => l.op === 'added').length;
  const removed = all.filter((l) => l.op === 'removed').length;
  return (
    <figure className="cmp-diff-block">
      <figcaption>
        Summary diff: <strong>{label}</strong> against the original <span className="cmp-added">+{added}</span>{' '}
        <span className="cmp-removed">−{removed}</span> lines
      </figcaption>
      <pre className="cmp-diff" aria-label={`Summary diff of ${label}`}>
        {foldLines(all).map((l, i) =>
          l.op === 'fold' ? (
            <span key={i} className="cmp-line fold">{`  … ${l.count} unchanged lines …\n`}</span>
          ) : (
            <span key={i} className={`cmp-line ${l.op}`}>{`${MARK[l.op]} ${l.text}\n`}</span>
          ),
        )}
      </pre>
    </figure>
  );
}
