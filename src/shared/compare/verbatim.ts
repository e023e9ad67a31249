/*
 * The verbatim anchors of a text: identifiers, paths, numbers and error strings. The Conversation
 * Compaction article's prompt says why these matter ("Never paraphrase file paths, error codes,
 * function names, or version numbers — copy them verbatim"): a summary that keeps them lets the
 * agent act without re-reading. Which of a source's anchors survive verbatim in a candidate is a
 * deterministic recall measure — not a quality judgement (a summary can keep every anchor and still
 * be wrong).
 */

export const ANCHOR_KINDS = ['path', 'identifier', 'number', 'error'] as const;
export type AnchorKind = (typeof ANCHOR_KINDS)[number];

export type Anchors = Readonly<Record<AnchorKind, readonly string[]>>;

// A path: at least one slash between name characters, or a bare file name with a known-looking extension.
const PATH =
  /(?:~|\.{1,2})?(?:\/[\w.@+-]+){2,}\/?|\b[\w.@+-]+(?:\/[\w.@+-]+)+|\b[\w-]+\.(?:ts|tsx|js|jsx|mjs|cjs|json|jsonl|md|py|rs|go|java|c|h|cpp|hpp|toml|yaml|yml|sh|txt|lock|css|html|sql)\b/g;
// Identifiers that are unmistakably code: snake_case, camelCase/PascalCase with an inner capital, dotted names, or call syntax.
const IDENT =
  /\b(?:[A-Za-z_][A-Za-z0-9]*_[A-Za-z0-9_]+|[a-z]+[A-Z][A-Za-z0-9]*|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*|[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+(?=\())\b|\b[A-Za-z_$][\w$]*(?=\()/g;
// Numbers worth keeping: versions, decimals, and integers of 3+ digits (small counts are noise), with unit suffixes.
const NUMBER = /\bv?\d+\.\d+(?:\.\d+)*(?:[-+][\w.]+)?\b|\b\d{3,}(?:[,_]\d{3})*(?:\.\d+)?(?:\s?(?:ms|s|KB|MB|GB|k|%))?/g;
// Error strings: codes (ENOENT, E0502, TS2345, HTTP 404-style), and "…Error: message" up to the line end.
const ERROR_CODE = /\b(?:E[A-Z]{3,}|E\d{3,5}|TS\d{4}|[A-Z][A-Z0-9_]{3,}_(?:ERROR|FAILED|EXCEEDED|REQUIRED|NOT_FOUND))\b/g;
const ERROR_LINE = /\b[A-Z]?[A-Za-z]*(?:Error|Exception|error|panicked)\b:?[^\n]{0,120}/g;

const STOP_IDENTS = new Set(['e.g', 'i.e']);

function collect(text: string, re: RegExp, into: Set<string>, max: number, filter?: (s: string) => boolean): void {
  re.lastIndex = 0;
  for (const m of text.matchAll(re)) {
    const s = m[0].trim().replace(/[.,;:)]+$/, '');
    if (s.length < 3 || s.length > 200) continue;
    if (filter && !filter(s)) continue;
    into.add(s);
    if (into.size >= max) break;
  }
}

/** The anchors of a text, each list sorted and without duplicates (at most `max` per kind). */
export function anchorsOf(text: string, max = 2_000): Anchors {
  const paths = new Set<string>();
  const idents = new Set<string>();
  const numbers = new Set<string>();
  const errors = new Set<string>();
  collect(text, PATH, paths, max, (s) => !/^https?:/.test(s) && !/^\d+(\/\d+)+$/.test(s));
  collect(text, IDENT, idents, max, (s) => !STOP_IDENTS.has(s) && !paths.has(s));
  collect(text, NUMBER, numbers, max);
  collect(text, ERROR_CODE, errors, max);
  collect(text, ERROR_LINE, errors, max, (s) => /error|exception|panicked/i.test(s) && s.length >= 8);
  const sorted = (s: Set<string>) => [...s].sort();
  return { path: sorted(paths), identifier: sorted(idents), number: sorted(numbers), error: sorted(errors) };
}

export interface Survival {
  readonly kind: AnchorKind;
  readonly total: number;
  readonly kept: number;
  /** kept / total, or null when the source has none of this kind. */
  readonly recall: number | null;
  /** Up to 50 anchors that did not survive, for display. */
  readonly lost: readonly string[];
}

/**
 * Which of the source's anchors appear verbatim in the candidate. Error lines are long and a summary
 * may quote them partly: an error line counts as kept when its first 40 characters appear.
 */
export function survival(source: Anchors, candidate: string): Survival[] {
  return ANCHOR_KINDS.map((kind) => {
    const list = source[kind];
    const lost: string[] = [];
    let kept = 0;
    for (const a of list) {
      const probe = kind === 'error' ? a.slice(0, 40) : a;
      if (candidate.includes(probe)) kept++;
      else if (lost.length < 50) lost.push(a);
    }
    return { kind, total: list.length, kept, recall: list.length === 0 ? null : kept / list.length, lost };
  });
}

/** One number for a table: all kinds pooled (null when the source has no anchors at all). */
export function pooledRecall(s: readonly Survival[]): number | null {
  const total = s.reduce((n, x) => n + x.total, 0);
  return total === 0 ? null : s.reduce((n, x) => n + x.kept, 0) / total;
}
