import type { SummaryRequest } from '../types';
import type { RunContext, Step } from './context';
import { groupToFit } from './fit';
import { MAX_REDUCE_LEVELS } from './options';
import { reduceRequest, renderSummary, withRawItems, type LabelledSummary } from './prompts';
import { findReread, parseReread } from './reread';
import type { TraceRecorder } from './trace';

/*
 * cosh: "Reducers process all ordered summaries, recursively grouping them when needed." The
 * final reduction keeps the connector's output configuration (maxOutput null); intermediate ones
 * send the 10 % map reservation. "Eight reduction levels ... bound non-converging output."
 */

/** A reduction input: a summary plus what the trace calls it (a map ordinal at level 1, else a reduction index). */
export interface ReduceInput extends LabelledSummary {
  readonly ref: number;
}

const cancelled = (): Step<never> => ({ ok: false, reason: 'cancelled', cancelled: true });

/**
 * Sends one reduction; honours one REREAD. cosh: "One reread attempt is permitted per reduction
 * request"; "Malformed, unavailable, or oversized rereads fail explicitly".
 */
export async function reduceOnce(ctx: RunContext, trace: TraceRecorder, req: SummaryRequest): Promise<Step<string>> {
  const first = await ctx.send(req);
  if (!first.ok) return first.kind === 'cancelled' ? cancelled() : { ok: false, reason: first.reason };
  const arg = findReread(first.text);
  if (arg === null) return { ok: true, value: first.text };

  const parsed = parseReread(arg, ctx.prefix);
  const failed = (ranges: readonly (readonly [number, number])[], reason: string): Step<never> => {
    trace.rereads.push({ ranges: [...ranges], ok: false, reason });
    return { ok: false, reason: `${req.label}: ${reason}` };
  };
  if (!parsed.ok) return failed(parsed.ranges, parsed.reason);
  const again = withRawItems(req, ctx.items, parsed.ranges);
  if (!ctx.fits(again)) {
    const raw = parsed.ranges.reduce((n, [a, b]) => n + ctx.itemTokens.slice(a, b + 1).reduce((x, y) => x + y, 0), 0);
    return failed(
      parsed.ranges,
      `oversized REREAD: the reduction with ${raw} tokens of raw items does not fit the ${ctx.window}-token summarizer window`,
    );
  }
  const second = await ctx.send(again);
  if (!second.ok) {
    if (second.kind === 'cancelled') return cancelled();
    return failed(parsed.ranges, second.reason);
  }
  if (findReread(second.text) !== null)
    return failed(parsed.ranges, 'a second REREAD in one reduction request (one reread attempt is permitted)');
  trace.rereads.push({ ranges: [...parsed.ranges], ok: true });
  return { ok: true, value: second.text };
}

export async function runReduce(ctx: RunContext, trace: TraceRecorder, maps: readonly ReduceInput[]): Promise<Step<string>> {
  let inputs = maps;
  for (let level = 1; ; level++) {
    if (ctx.cancelled) return cancelled();
    const final = reduceRequest(inputs, level, 0, true, null);
    if (ctx.fits(final)) {
      ctx.progress({ stage: 'reduce', done: 0, total: 1, message: `final reduction, level ${level}` });
      const r = await reduceOnce(ctx, trace, final);
      trace.reductions.push({ level, inputs: inputs.map((s) => s.ref), ok: r.ok });
      return r;
    }
    if (level >= MAX_REDUCE_LEVELS) {
      return {
        ok: false,
        reason: `${inputs.length} summaries still do not fit one final reduction after ${MAX_REDUCE_LEVELS} reduction levels (cosh bounds non-converging reduction at ${MAX_REDUCE_LEVELS})`,
      };
    }
    const groups = groupToFit(
      ctx,
      inputs,
      renderSummary,
      (g, k) => reduceRequest(g, level, k, false, ctx.mapOutput),
      (s) => `${s.label} (items #${s.from}–#${s.to})`,
    );
    if (!groups.ok) return groups;
    const next: ReduceInput[] = [];
    for (const [k, g] of groups.value.entries()) {
      if (ctx.cancelled) return cancelled();
      ctx.progress({ stage: 'reduce', done: k, total: groups.value.length, message: `level ${level}` });
      const r = await reduceOnce(ctx, trace, reduceRequest(g, level, k, false, ctx.mapOutput));
      trace.reductions.push({ level, inputs: g.map((s) => s.ref), ok: r.ok });
      if (!r.ok) return r.cancelled ? r : { ok: false, reason: `reduction L${level}#${k} failed: ${r.reason}` };
      const first = g[0] as ReduceInput;
      const last = g[g.length - 1] as ReduceInput;
      next.push({ label: `reduction L${level}#${k}`, from: first.from, to: last.to, text: r.value, ref: trace.reductions.length - 1 });
    }
    ctx.notes.push(`reduction level ${level}: ${inputs.length} summaries in ${groups.value.length} group(s)`);
    inputs = next;
  }
}
