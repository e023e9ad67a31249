import { headTokens, itemTokens, viewTokens } from '../common/render';
import type { StrategyDef, StrategyInput, StrategyResult } from '../types';
import { runAudit } from './audit';
import { RunContext, type Step } from './context';
import { runMaps } from './maps';
import { parseOptions, type LayeredOptions } from './options';
import { planCut } from './plan';
import { missingSections, oneShotRequest } from './prompts';
import { runReduce } from './reduce';
import { annotate, candidateView, commitBudget, committed, failed, STRATEGY_ID } from './result';
import { staleNotes, staleObservations } from './stale';
import { TraceRecorder } from './trace';

/*
 * cosh, "Layered context compaction": a structured handoff checkpoint over the older
 * prefix, composed before a raw tail of 20 % of the agent's budget. One-shot when the summarizer's
 * actual request fits its window; otherwise MapReduce (maps.ts, reduce.ts, audit.ts).
 */

/** Maps → recursive reduce → audit with corrections. */
async function mapReduce(ctx: RunContext, trace: TraceRecorder, opts: LayeredOptions): Promise<Step<string>> {
  const maps = await runMaps(ctx, trace, opts);
  if (!maps.ok) return maps;
  const reduced = await runReduce(ctx, trace, maps.value);
  if (!reduced.ok) return reduced.cancelled ? reduced : { ok: false, reason: `${reduced.reason}; ${trace.coverage()}` };
  if (!opts.audit) {
    ctx.notes.push('audit skipped (option audit: false)');
    return reduced;
  }
  return runAudit(ctx, trace, reduced.value, maps.value);
}

export async function runLayered(input: StrategyInput): Promise<StrategyResult> {
  const items = input.source.items;
  // The source is tokenised once: the view's total is its head plus the items' own counts (the same
  // strings viewTokens would count), and every later size — cut, packing, map fits — uses them.
  const tokens = itemTokens(items, input.count);
  const before = headTokens(input.source, input.count) + tokens.reduce((a, b) => a + b, 0);
  const parsed = parseOptions(input.options);
  if (!parsed.ok) return failed(parsed.error, { calls: [], notes: [], mapreduce: null, before });
  const opts = parsed.options;
  if (!input.summarizer)
    return failed('layered needs a summarizer: cosh checkpoints are written by a model', { calls: [], notes: [], mapreduce: null, before });

  const plan = planCut(items, tokens, input.budget.window);
  const ctx = new RunContext(items, tokens, input.count, input.summarizer, input.signal, input.budget.window, input.onProgress, {
    from: plan.from,
    to: plan.to,
  });
  ctx.notes.push(...plan.notes);
  let trace: TraceRecorder | null = null;
  const records = () => ({ calls: ctx.calls, notes: ctx.notes, mapreduce: trace?.toTrace() ?? null, before });
  if (plan.to < plan.from)
    return failed(
      `nothing to compact: the history fits the raw tail (${plan.tailBudget} tokens = 20 % of the agent window ${input.budget.window})`,
      records(),
    );
  if (ctx.cancelled) return failed('cancelled', records());
  const tailTokens = tokens.slice(plan.tailFrom).reduce((a, b) => a + b, 0);
  ctx.notes.push(
    `checkpoint covers items #${plan.from}–#${plan.to}; raw tail #${plan.tailFrom}–#${items.length - 1} (${tailTokens} tokens; budget ${plan.tailBudget} = 20 % of the agent window ${input.budget.window})`,
  );
  if (input.summarizer.defaultMaxOutput === null)
    ctx.notes.push(
      "the connector's output ceiling is unknown (provider default); no output is reserved for requests that leave it to the connector",
    );

  // cosh: "Before choosing MapReduce, the selected summarizer's actual request is checked against
  // its own known window, with prompt overhead and the output ceiling its adapter actually sends."
  let summary: string | null = null;
  const oneShot = oneShotRequest(items, plan.from, plan.to);
  const oneShotTokens = opts.forceMapReduce ? 0 : ctx.inputTokens(oneShot) + ctx.connectorOutput;
  if (opts.forceMapReduce) {
    ctx.notes.push('MapReduce forced (option forceMapReduce)');
  } else if (oneShotTokens > ctx.window) {
    ctx.notes.push(
      `one-shot request (${oneShotTokens} tokens with its output ceiling) exceeds the ${ctx.window}-token summarizer window: MapReduce`,
    );
  } else {
    ctx.progress({ stage: 'one-shot', done: 0, total: 1 });
    // maxOutput null: one-shot never borrows MapReduce's segment ceiling (cosh's regression).
    const sent = await ctx.send(oneShot);
    if (sent.ok) summary = sent.text;
    else if (sent.kind === 'cancelled') return failed('cancelled', records());
    else if (sent.kind === 'overflow') {
      // "provider errors are authoritative": the estimate said it fits, the provider says it does not.
      ctx.reportWindow(sent.window);
      ctx.notes.push(`${sent.reason}; falling back to MapReduce`);
    } else return failed(`one-shot summary failed: ${sent.reason}`, records());
  }

  if (summary === null) {
    trace = new TraceRecorder();
    const mr = await mapReduce(ctx, trace, opts);
    if (!mr.ok) {
      if (mr.cancelled) {
        ctx.notes.push(`cancelled with progress kept: ${trace.coverage()}`);
        return failed('cancelled', records());
      }
      return failed(mr.reason, records());
    }
    summary = mr.value;
  }
  // Cancellation is rechecked after the model returns and before the commit.
  if (ctx.cancelled) return failed('cancelled', records());

  const missing = missingSections(summary);
  if (missing.length > 0) ctx.notes.push(`the handoff lacks section(s): ${missing.join(', ')}`);
  ctx.notes.push(...staleNotes(staleObservations(items, plan.from, plan.to), summary));

  const installed = annotate(summary, plan, items.length - plan.tailFrom);
  const view = candidateView(input, plan, installed);
  const after = viewTokens(view, input.count);
  const budget = commitBudget(input);
  if (after > budget) {
    const reserve = input.budget.maxOutput ?? 0;
    return failed(
      `handoff rejected: the compacted view would be ${after} tokens, over the commit budget of ${budget} (agent window ${input.budget.window} − output reserve ${reserve}); the source view stands`,
      records(),
    );
  }
  return committed(view, installed, records(), after);
}

export const layered: StrategyDef = {
  id: STRATEGY_ID,
  title: 'Layered checkpoint: structured handoff, 20 % raw tail, MapReduce with audit (cosh)',
  source: '001',
  needsModel: true,
  run: runLayered,
};
