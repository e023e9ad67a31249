import { z } from 'zod';

export const Severity = z.enum(['error', 'warning', 'info']);
export type Severity = z.infer<typeof Severity>;

/** A finding of a rule: stable id, severity, the events it cites and a sentence a user understands. */
export const Diagnostic = z.object({
  rule: z.string(),
  severity: Severity,
  message: z.string(),
  /** Path of the file the finding is about, when it is about one. */
  file: z.string().nullable(),
  /** 1-based line in that file. */
  line: z.number().int().positive().nullable(),
  /** Events the finding cites. */
  seqs: z.array(z.number().int().nonnegative()).default([]),
});
export type Diagnostic = z.infer<typeof Diagnostic>;

export const SEVERITY_RANK: Record<Severity, number> = { error: 2, warning: 1, info: 0 };
