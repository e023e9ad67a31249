import { z } from 'zod';
import type { Block } from '../../model/content';
import type { Derivation, Item, Role } from '../../model/item';
import { tailStart, units } from './units';
import type { Result } from '../../result';
import { headTokens, itemTokens, viewTokens } from './render';
import type { CandidateView, SourceItem, StrategyInput, StrategyOutcome, StrategyResult, SummaryCall } from '../types';
import { grouped } from '../../grouped';

/*
 * What every strategy does the same way: ids for new items, kept items, the head / range / tail
 * split of a view, option validation, and the StrategyResult with its token figures. Keeping this
 * in one place keeps the strategies' figures comparable (one counter, one rendering).
 */

/** The run-local compaction id a re-run's checkpoints cite (nothing is written to the source). */
export const RERUN_COMPACTION_ID = 'rerun';

/** "12,345": figures in notes are for people. */
export const fmt = (n: number): string => grouped(n);

/**
 * ratio × window as a watermark, free of binary-fraction noise: 0.7 × 100,020 is 70,014, not
 * 70,014.00000000001, so a view of exactly 70,014 tokens is at the watermark, as the systems we
 * follow mean.
 */
export const watermark = (ratio: number, window: number): number => Math.round(ratio * window * 1e6) / 1e6;

/** A source item carried over unchanged: same id, same blocks. */
export function kept(item: SourceItem): Item {
  return item.meta === undefined
    ? { id: item.id, role: item.role, blocks: [...item.blocks] }
    : { id: item.id, role: item.role, blocks: [...item.blocks], meta: item.meta };
}

/** A new single-text item made by a strategy. */
export function textItem(id: string, role: Role, text: string, derivation: Derivation): Item {
  return { id, role, blocks: [{ type: 'text', text }], derivation };
}

/** A new item made from a source item's blocks, citing it. */
export function derivedItem(id: string, of: SourceItem, blocks: Block[], derivation: Derivation): Item {
  const item: Item = { id, role: of.role, blocks, derivation };
  return of.meta === undefined ? item : { ...item, meta: of.meta };
}

/**
 * 1 when the first item is a system message: the system head at surface position 0 never enters a
 * compacted range (DeepSeek Harness); later system messages are history like any other.
 */
export function headLength(items: readonly SourceItem[]): number {
  return items[0]?.role === 'system' ? 1 : 0;
}

export interface Split {
  /** Items [0, head) are the system head. */
  readonly head: number;
  /** Items [head, tail) are the range to compact; [tail, length) the recent tail kept verbatim. */
  readonly tail: number;
  /** Tokens of each item as rendered for a prompt. */
  readonly tokens: readonly number[];
}

/**
 * Split a view into head, range and a recent tail of at most `tailBudget` tokens cut at unit
 * boundaries. With `keepLastUnit` the last unit stays in the tail whatever its size (an open tool
 * call must not be summarised away from the result that will answer it).
 */
export function splitByTokens(
  items: readonly SourceItem[],
  count: StrategyInput['count'],
  tailBudget: number,
  keepLastUnit = false,
  counted?: readonly number[],
): Split {
  // `counted`: these items' tokens, already counted (Run.itemTokens for the source's own items).
  const tokens = counted ?? itemTokens(items, count);
  const head = headLength(items);
  const rest = items.slice(head);
  return { head, tail: head + tailStart(rest, tokens.slice(head), tailBudget, keepLastUnit), tokens };
}

/** True when the last unit after the head issues a call nothing answers yet. */
export function openTail(items: readonly SourceItem[]): boolean {
  const us = units(items.slice(headLength(items)));
  return (us[us.length - 1]?.open.length ?? 0) > 0;
}

/** Validate a strategy's options against its schema (strict: unknown keys are an error). */
export function parseOptions<T>(schema: z.ZodType<T>, raw: Readonly<Record<string, unknown>> | undefined): Result<T> {
  const r = schema.safeParse(raw ?? {});
  return r.success
    ? { ok: true, value: r.data }
    : { ok: false, error: `invalid options: ${z.prettifyError(r.error).replace(/\n/g, '; ')}` };
}

/** Collects what a run did, and turns it into a StrategyResult with both token figures. */
export class Run {
  readonly calls: SummaryCall[] = [];
  readonly notes: string[] = [];
  /** Estimated tokens of the source view. */
  readonly before: number;
  /** Tokens of each source item as rendered for a prompt: the source is tokenised once per run. */
  readonly itemTokens: readonly number[];
  private n = 0;

  constructor(
    readonly strategy: string,
    private readonly input: StrategyInput,
  ) {
    this.itemTokens = itemTokens(input.source.items, input.count);
    // The same strings viewTokens counts: the head, then each item.
    this.before = headTokens(input.source, input.count) + this.itemTokens.reduce((a, b) => a + b, 0);
  }

  /** `<strategy>:<n>`, unique within the run. */
  newId(): string {
    this.n++;
    return `${this.strategy}:${this.n}`;
  }

  note(text: string): void {
    this.notes.push(text);
  }

  /** Tokens of a candidate view, with the same counter as `before`. */
  measure(view: CandidateView): number {
    return viewTokens(view, this.input.count);
  }

  /** A view over the source's system and tools. */
  view(items: Item[]): CandidateView {
    return { system: this.input.source.system, tools: this.input.source.tools, items };
  }

  /** The source stands. */
  failed(error: string): StrategyResult {
    return {
      strategy: this.strategy,
      outcome: 'failed',
      view: null,
      summary: null,
      calls: this.calls,
      error,
      notes: this.notes,
      mapreduce: null,
      tokens: { before: this.before, after: null },
    };
  }

  finish(
    outcome: Exclude<StrategyOutcome, 'failed'>,
    view: CandidateView,
    summary: string | null,
    error: string | null = null,
  ): StrategyResult {
    const after = this.measure(view);
    return {
      strategy: this.strategy,
      outcome,
      view,
      summary,
      calls: this.calls,
      error,
      notes: this.notes,
      mapreduce: null,
      tokens: { before: this.before, after },
    };
  }
}

/**
 * Why a summary call's answer cannot be installed, or null when it can. Completion integrity (Rind:
 * "An empty summary or a non-success finish reason cannot be treated as a complete handoff";
 * cosh: only a natural stop counts). The call stays in `calls` either way, with its usage.
 */
export function unusable(call: SummaryCall): string | null {
  if (call.error) return `summary call failed (${call.error.kind}: ${call.error.message})`;
  if (call.finish?.reason !== 'stop') return `finish reason ${call.finish?.raw ?? 'missing'} is not a natural completion`;
  if (call.text === null || call.text.trim() === '') return 'empty summary';
  return null;
}
