import { z } from 'zod';
import { Count, Millis, Tokens } from './scalars';
import { Diagnostic } from '../model/diagnostic';

/**
 * The comparison of ./rerun-contract.ts's compareRuns: the original compaction beside re-runs of
 * it (src/shared/compare/compare.ts builds it; the handler checks it against these shapes).
 */

const SeverityCounts = z.object({ error: Count, warning: Count, info: Count });

const AnchorList = z.array(z.string());
export const CompareAnchors = z.object({
  paths: AnchorList,
  commands: AnchorList,
  identifiers: AnchorList,
  urls: AnchorList,
  errors: AnchorList,
  numbers: AnchorList,
  constraints: AnchorList,
  tasks: AnchorList,
  decisions: AnchorList,
});

export const CompareSubjectRow = z.object({
  /** "original" or the run id. */
  id: z.string(),
  label: z.string(),
  outcome: z.string(),
  /** Session content or a model's (or the mock's) text: render as text. */
  summary: z.string().nullable(),
  /** Characters of what the agent would see after (the text itself stays in main: it can be a whole session). */
  viewChars: Count.nullable(),
  tokensBefore: Tokens.nullable(),
  tokensAfter: Tokens.nullable(),
  diagnostics: z.array(Diagnostic),
  costUsd: z.number().nonnegative().nullable(),
  requests: Count.nullable(),
  latencyMs: Millis.nullable(),
});

export const CompareRow = z.object({
  subject: CompareSubjectRow,
  sections: z.array(z.object({ name: z.string(), present: z.boolean(), empty: z.boolean() })),
  survival: z.array(
    z.object({
      kind: z.enum(['paths', 'commands', 'identifiers', 'urls', 'errors', 'numbers', 'constraints', 'tasks', 'decisions']),
      total: Count,
      kept: Count,
      recall: z.number().min(0).max(1).nullable(),
      /** Up to 50 anchors that did not survive. */
      lost: z.array(z.string()),
    }),
  ),
  recall: z.number().min(0).max(1).nullable(),
  severities: SeverityCounts,
  /** Line diff of this summary against the first subject's; null for the first, or when either has none. */
  diff: z.array(z.object({ op: z.enum(['same', 'added', 'removed']), text: z.string() })).nullable(),
});
export type CompareRow = z.infer<typeof CompareRow>;

export const Comparison = z.object({ anchors: CompareAnchors, rows: z.array(CompareRow) });
export type Comparison = z.infer<typeof Comparison>;
