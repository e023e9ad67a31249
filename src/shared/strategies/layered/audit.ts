import type { RunContext, Step } from './context';
import { groupToFit } from './fit';
import { MAX_CORRECTIONS } from './options';
import { auditRequest, correctionRequest, parseVerdict, renderSummary, type LabelledSummary } from './prompts';
import type { TraceRecorder } from './trace';

/*
 * cosh: "A validator audits the final candidate against the original map summaries. Corrections
 * are revalidated. Eight reduction levels and two corrections bound non-converging output." An audit
 * sends the 10 % map reservation as its ceiling; a correction keeps the connector's output settings.
 * A model's own PASS is recorded, not trusted as ground truth: the invariants checked
 * deterministically (coverage, budget) do not depend on it.
 */

interface AuditOutcome {
  readonly pass: boolean;
  readonly findings: readonly string[];
  /** The evidence parts whose check failed: what a correction is shown. */
  readonly evidence: readonly LabelledSummary[];
}

/** Audits the candidate against all map summaries, in as many parts as the window needs; all must PASS. */
async function auditOnce(ctx: RunContext, candidate: string, maps: readonly LabelledSummary[], round: number): Promise<Step<AuditOutcome>> {
  // Grouped with single-part labels; the label is not sent text, so the sizes are the same.
  const parts = groupToFit(
    ctx,
    maps,
    renderSummary,
    (g, k) => auditRequest(candidate, g, round, k, 1, ctx.mapOutput),
    (s) => `the candidate with ${s.label}`,
  );
  if (!parts.ok) return parts;
  const total = parts.value.length;
  const findings: string[] = [];
  const evidence: LabelledSummary[] = [];
  for (const [k, part] of parts.value.entries()) {
    const sent = await ctx.send(auditRequest(candidate, part, round, k, total, ctx.mapOutput));
    if (!sent.ok) return { ok: false, reason: sent.reason, ...(sent.kind === 'cancelled' ? { cancelled: true } : {}) };
    const verdict = parseVerdict(sent.text);
    if (!verdict.pass) {
      findings.push(...verdict.findings);
      evidence.push(...part);
    }
  }
  return { ok: true, value: { pass: findings.length === 0, findings, evidence } };
}

export async function runAudit(
  ctx: RunContext,
  trace: TraceRecorder,
  candidate: string,
  maps: readonly LabelledSummary[],
): Promise<Step<string>> {
  let text = candidate;
  for (let corrections = 0; ; corrections++) {
    if (ctx.cancelled) return { ok: false, reason: 'cancelled', cancelled: true };
    ctx.progress({
      stage: 'audit',
      done: corrections,
      total: MAX_CORRECTIONS + 1,
      message: corrections === 0 ? 'audit' : `re-audit after correction ${corrections}`,
    });
    const audit = await auditOnce(ctx, text, maps, corrections + 1);
    if (!audit.ok) {
      trace.audits.push({ ok: false, corrections, findings: audit.reason });
      return audit.cancelled ? audit : { ok: false, reason: `audit failed: ${audit.reason}` };
    }
    const { pass, findings, evidence } = audit.value;
    trace.audits.push({ ok: pass, corrections, ...(pass ? {} : { findings: findings.join('\n') }) });
    if (pass) return { ok: true, value: text };
    if (corrections >= MAX_CORRECTIONS) {
      return { ok: false, reason: `the audit still fails after ${MAX_CORRECTIONS} corrections (non-converging): ${findings.join('; ')}` };
    }
    // The correction sees the evidence the failed parts were checked against, when it fits; else the findings alone.
    let req = correctionRequest(text, findings, evidence, corrections + 1);
    if (!ctx.fits(req)) {
      req = correctionRequest(text, findings, [], corrections + 1);
      ctx.notes.push(
        `correction ${corrections + 1} sent without the map summaries (they do not fit the ${ctx.window}-token window beside the candidate)`,
      );
    }
    if (!ctx.fits(req))
      return { ok: false, reason: `correction ${corrections + 1} does not fit the ${ctx.window}-token summarizer window` };
    const sent = await ctx.send(req);
    if (!sent.ok)
      return sent.kind === 'cancelled'
        ? { ok: false, reason: 'cancelled', cancelled: true }
        : { ok: false, reason: `correction failed: ${sent.reason}` };
    text = sent.text;
  }
}
