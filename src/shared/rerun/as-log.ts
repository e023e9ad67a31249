import type { Diagnostic } from '../model/diagnostic';
import { CanonicalEvent, type CanonicalEventInput, type LogEvent } from '../model/event';
import type { Item } from '../model/item';
import { diagnose } from '../diagnostics';
import { replay } from '../replay/fold';
import { surfaceBefore } from '../replay/view';
import type { CandidateView, SourceView, StrategyResult } from '../strategies/types';
import { blocksText } from '../strategies/common/render';

/*
 * A re-run's candidate written as a Palimpsest log, so the diagnostics catalog judges it with exactly
 * the rules it applies to compactions found in real logs: the source items, a compaction bracket with
 * the summary (or its errors), the surface operations that turn the source into the candidate, and one
 * agent request after it whose model view must be the candidate. When those operations cannot produce
 * the candidate (a strategy dropped items without a marker), RERUN_VIEW_MISMATCH says so.
 */

import { RERUN_COMPACTION_ID } from '../strategies/common/result';
export { RERUN_COMPACTION_ID };
const REQUEST_AFTER = 'rerun:after';

interface Ops {
  readonly events: CanonicalEventInput[];
  /** Seq of each source item's event (events are numbered by position). */
  readonly seqOf: ReadonlyMap<string, number>;
  /** Bracket events a checkpoint cites first (compaction/start, the summary), as DeepSeek Harness's commit does. */
  readonly bracket: readonly number[];
}

function sourceIdsOf(item: Item): readonly string[] {
  const d = item.derivation;
  if (!d) return [];
  if (d.kind === 'pruned') return [d.of];
  if (d.kind === 'checkpoint') return d.covers;
  if (d.kind === 'marker') return d.of;
  return [];
}

/** Surface operations turning the source into the candidate, in candidate order. */
function surfaceOps(source: SourceView, view: CandidateView, ops: Ops): void {
  const live = new Set(source.items.map((i) => i.id));
  const order = source.items.map((i) => i.id);
  const kept = new Set(view.items.filter((i) => live.has(i.id) && !i.derivation).map((i) => i.id));
  const consumed = new Set<string>();
  for (let k = 0; k < view.items.length; k++) {
    const item = view.items[k] as Item;
    if (live.has(item.id) && !item.derivation) continue;
    // Replace the live source items it derives from (those not kept verbatim and not consumed yet).
    const covered = sourceIdsOf(item).filter((id) => live.has(id) && !kept.has(id) && !consumed.has(id));
    if (covered.length > 0) {
      const positions = covered.map((id) => order.indexOf(id)).sort((a, b) => a - b);
      const from = order[positions[0] as number] as string;
      const to = order[positions[positions.length - 1] as number] as string;
      // A replace takes the whole positional span: everything between from and to goes.
      for (let p = positions[0] as number; p <= (positions[positions.length - 1] as number); p++) consumed.add(order[p] as string);
      const shadowed: number[] = [];
      for (let p = positions[0] as number; p <= (positions[positions.length - 1] as number); p++)
        shadowed.push(ops.seqOf.get(order[p] as string) as number);
      const cites = item.derivation?.kind === 'checkpoint' ? [...ops.bracket, ...shadowed] : shadowed;
      ops.events.push({ kind: 'item', item, op: { op: 'replace', from, to }, sources: cites });
    } else {
      // Second part of a handoff pair, or a new item without sources: put it before the next kept item.
      const next = view.items.slice(k + 1).find((x) => kept.has(x.id));
      const covers = sourceIdsOf(item)
        .map((id) => ops.seqOf.get(id))
        .filter((x): x is number => x !== undefined);
      const cites = item.derivation?.kind === 'checkpoint' ? [...ops.bracket, ...covers] : covers;
      ops.events.push({
        kind: 'item',
        item,
        op: next ? { op: 'insert', before: next.id } : { op: 'append' },
        ...(cites.length ? { sources: cites } : {}),
      });
    }
  }
}

export interface CandidateLog {
  readonly events: LogEvent[];
  /** Diagnostics about the conversion itself (the candidate could not be expressed exactly). */
  readonly problems: Diagnostic[];
}

export function candidateLog(source: SourceView, result: StrategyResult, window: number): CandidateLog {
  const ev: CanonicalEventInput[] = [];
  ev.push({ kind: 'session', id: 'rerun', harness: 'palimpsest-rerun' });
  ev.push({
    kind: 'header',
    system: source.system ? [...source.system] : null,
    tools: source.tools ? [...source.tools] : null,
    route: { ...(source.route ?? {}), window },
  });
  const seqOf = new Map<string, number>();
  for (const it of source.items) {
    seqOf.set(it.id, ev.length);
    ev.push({ kind: 'item', item: { id: it.id, role: it.role, blocks: [...it.blocks], ...(it.meta ? { meta: true } : {}) } });
  }
  ev.push({ kind: 'request', id: 'rerun:before', purpose: 'agent' });
  // Model-free pruning is no compaction (DeepSeek Harness: the pruner changes the surface only); a
  // result without any checkpoint is written as surface operations alone, with no bracket around
  // them.
  const checkpoints = result.view?.items.some((i) => i.derivation?.kind === 'checkpoint') ?? false;
  const bracketed = checkpoints || result.calls.length > 0 || result.outcome !== 'committed';
  const bracket: number[] = [];
  if (bracketed) {
    bracket.push(ev.length);
    ev.push({
      kind: 'compaction/start',
      id: RERUN_COMPACTION_ID,
      trigger: 'manual',
      strategy: result.strategy,
      preTokens: result.tokens.before,
      source: source.items.map((i) => i.id),
    });
  }
  for (const c of result.calls) {
    if (c.error)
      ev.push({
        kind: 'compaction/summary-error',
        id: RERUN_COMPACTION_ID,
        error: { code: c.error.kind, message: c.error.message },
        ...(c.finish ? { finish: c.finish } : {}),
        ...(c.usage ? { usage: c.usage } : {}),
      });
  }
  if (result.summary !== null && bracketed) {
    const last = [...result.calls].reverse().find((c) => c.text !== null);
    bracket.push(ev.length);
    ev.push({
      kind: 'compaction/summary',
      id: RERUN_COMPACTION_ID,
      summary: [{ type: 'text', text: result.summary }],
      ...(last?.finish ? { finish: last.finish } : {}),
      ...(last?.usage ? { usage: last.usage } : {}),
    });
  }
  const ops: Ops = { events: ev, seqOf, bracket };
  if (result.view && result.outcome !== 'failed') surfaceOps(source, result.view, ops);
  const outcome = result.outcome === 'committed' ? 'committed' : result.outcome === 'fallback' ? 'fallback' : 'failed';
  if (bracketed) {
    ev.push({
      kind: 'compaction/end',
      id: RERUN_COMPACTION_ID,
      outcome,
      ...(result.outcome === 'fallback'
        ? { fallback: { kind: 'truncation' as const, marker: result.view?.items.some((i) => i.derivation?.kind === 'marker') ?? false } }
        : {}),
      ...(result.error ? { error: { message: result.error } } : {}),
      ...(result.tokens.after !== null ? { postTokens: result.tokens.after } : {}),
    });
  }
  ev.push({ kind: 'request', id: REQUEST_AFTER, purpose: 'agent' });
  const events: LogEvent[] = ev.map((e, seq) => ({ ...CanonicalEvent.parse(e), seq }));
  const problems: Diagnostic[] = [];
  if (result.view && result.outcome !== 'failed') {
    const state = replay(events);
    const after = state.requests.find((r) => r.id === REQUEST_AFTER);
    const got = after ? surfaceBefore(state, after.seq).items.map((r) => r.item.id) : [];
    const want = result.view.items.map((i) => i.id);
    if (got.join('\u0000') !== want.join('\u0000')) {
      const extra = got.filter((id) => !want.includes(id));
      problems.push({
        rule: 'RERUN_VIEW_MISMATCH',
        severity: 'warning',
        file: null,
        line: null,
        seqs: [],
        message: `The candidate drops ${extra.length} source item(s) without a marker or checkpoint citing them (${extra.slice(0, 5).join(', ')}${extra.length > 5 ? ', …' : ''}); the diagnostics below judge the nearest expressible view.`,
      });
    }
  }
  return { events, problems };
}

/** The diagnostics catalog on a re-run's candidate (token rules use `estimate`). */
export function candidateDiagnostics(
  source: SourceView,
  result: StrategyResult,
  window: number,
  estimate: (text: string) => number,
): Diagnostic[] {
  const log = candidateLog(source, result, window);
  const state = replay(log.events);
  const found = diagnose({
    events: log.events,
    state,
    format: 'palimpsest',
    reported: log.problems,
    estimate: (blocks) => estimate(blocksText(blocks)),
  });
  return [...log.problems, ...found];
}
