import { z } from 'zod';
import { RunRecord, RunTarget } from '../rerun/record';
import type { Cell } from './cells';
import { fail, issuesText, ok, type Result } from './result';
import { RunScore } from './score';

/*
 * One line of an eval results file (JSONL, appended, never rewritten): which cell, the run record
 * as rerun writes it, its score against the facts as they were, and the judge's verdict when a
 * judge ran. Scores are stored with the run so a results file is a self-contained baseline; the
 * facts fingerprint says which facts it was scored against (compareToBaseline warns on a change).
 */

export const EVAL_FORMAT = 'palimpsest-eval';
export const EVAL_VERSION = 1;

/** An LLM judge's verdict: its own column, never merged into the scores, never ground truth. */
export const JudgeVerdict = z.object({
  model: z.string(),
  pass: z.boolean().nullable(),
  /** 0..1 when the judge gives a grade. */
  score: z.number().min(0).max(1).nullable(),
  rationale: z.string(),
  error: z.string().nullable(),
});
export type JudgeVerdict = z.infer<typeof JudgeVerdict>;

/** A cell as recorded: enough to group runs into matrix cells without the spec. */
export const CellRef = z.object({
  key: z.string(),
  trace: z.string(),
  target: RunTarget,
  /** Strategy label (how it is shown) and id. */
  strategy: z.string(),
  strategyId: z.string(),
  model: z.string(),
  fault: z.string().nullable(),
  repeat: z.number().int().nonnegative(),
  of: z.number().int().positive(),
});
export type CellRef = z.infer<typeof CellRef>;

export const EvalLine = z.object({
  format: z.literal(EVAL_FORMAT),
  v: z.literal(EVAL_VERSION),
  /** The spec's name. */
  spec: z.string(),
  cell: CellRef,
  run: RunRecord,
  score: RunScore,
  /** factsFingerprint() of the facts the score used; null when the trace has no facts file. */
  facts: z.string().nullable(),
  judge: JudgeVerdict.nullable(),
});
export type EvalLine = z.infer<typeof EvalLine>;

export function cellRef(cell: Cell): CellRef {
  return {
    key: cell.key,
    trace: cell.trace.path,
    target: cell.target,
    strategy: cell.strategy.label,
    strategyId: cell.strategy.id,
    model: cell.model.label,
    fault: cell.fault?.name ?? null,
    repeat: cell.repeat.index,
    of: cell.repeat.of,
  };
}

/** Validates one parsed line; `where` names it in errors ("results.jsonl:12"). */
export function parseEvalLine(value: unknown, where: string): Result<EvalLine> {
  const r = EvalLine.safeParse(value);
  return r.success ? ok(r.data) : fail(issuesText(where, r.error));
}
