import { diffLines } from 'diff';
import type { Diagnostic } from '../model/diagnostic';
import type { SourceItem } from '../strategies/types';
import { pooledRecall, sourceAnchors, survival, type Anchors, type Survival } from './verbatim';
import { sectionsPresent, type SectionPresence } from './sections';

/*
 * Side-by-side comparison of a compaction as the harness did it with one or more re-runs of it:
 * summary text diff, sections present, tokens before/after, diagnostics, and which anchors of the
 * source (the nine categories of compaction forensics) survive in what the agent would see.
 * Every figure is deterministic; nothing here asks a model.
 */

export interface CompareSubject {
  /** "original" or the run id. */
  readonly id: string;
  readonly label: string;
  readonly outcome: string;
  readonly summary: string | null;
  /** The whole text the agent would see after the compaction (summary + kept items), for survival. */
  readonly viewText: string | null;
  readonly tokensBefore: number | null;
  readonly tokensAfter: number | null;
  readonly diagnostics: readonly Diagnostic[];
  readonly costUsd: number | null;
  readonly requests: number | null;
  readonly latencyMs: number | null;
}

export interface DiffPart {
  readonly op: 'same' | 'added' | 'removed';
  readonly text: string;
}

export interface CompareRow {
  readonly subject: CompareSubject;
  readonly sections: readonly SectionPresence[];
  readonly survival: readonly Survival[];
  /** All anchor kinds pooled; null when the source has none. */
  readonly recall: number | null;
  readonly severities: { readonly error: number; readonly warning: number; readonly info: number };
  /** Line diff of this summary against the first subject's (the original); null for the first or when either has none. */
  readonly diff: readonly DiffPart[] | null;
}

export interface Comparison {
  readonly anchors: Anchors;
  readonly rows: readonly CompareRow[];
}

export function summaryDiff(a: string, b: string): DiffPart[] {
  return diffLines(a, b).map((p) => ({ op: p.added ? 'added' : p.removed ? 'removed' : 'same', text: p.value }));
}

function severities(ds: readonly Diagnostic[]): CompareRow['severities'] {
  const n = { error: 0, warning: 0, info: 0 };
  for (const d of ds) if (d.severity in n) n[d.severity as keyof typeof n]++;
  return n;
}

/**
 * Compare subjects on one source. `source` is the items the compaction could replace (the anchors
 * are taken from them); the first subject is the reference for diffs.
 */
export function compare(source: readonly SourceItem[], subjects: readonly CompareSubject[], sectionNames?: readonly string[]): Comparison {
  const anchors = sourceAnchors(source);
  const first = subjects[0];
  const rows = subjects.map((s, i): CompareRow => {
    const sv = survival(anchors, s.viewText ?? s.summary ?? '');
    return {
      subject: s,
      sections: s.summary === null ? [] : sectionsPresent(s.summary, sectionNames),
      survival: sv,
      recall: s.viewText === null && s.summary === null ? null : pooledRecall(sv),
      severities: severities(s.diagnostics),
      diff: i === 0 || !first || first.summary === null || s.summary === null ? null : summaryDiff(first.summary, s.summary),
    };
  });
  return { anchors, rows };
}
