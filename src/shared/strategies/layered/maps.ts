import type { SourceItem } from '../types';
import type { RunContext, Step } from './context';
import { MAX_REPARTITIONS } from './options';
import { packSegments } from './packer';
import { mapEnvelope, mapRequest } from './prompts';
import type { ReduceInput } from './reduce';
import { runPool } from './pool';
import type { Segment, TraceRecorder } from './trace';

/*
 * The map stage of cosh's MapReduce: whole-item segments, up to four in flight, a sequential
 * fallback after a provider failure, and at most three whole-item repartitions of incomplete maps
 * after context overflows. Accepted summaries are never regenerated.
 */

export interface MapOptions {
  readonly concurrency: number;
  readonly segmentTokens: number | null;
}

class MapStage {
  /** Soft packing target each segment was packed with (halved for the incomplete ones on overflow). */
  private readonly targets = new Map<Segment, number>();
  /** Set after a provider failure; later rounds stay sequential (cosh: "persists sequential fallback"). */
  private sequential = false;
  private readonly sep: number;

  constructor(
    private readonly ctx: RunContext,
    private readonly trace: TraceRecorder,
    private readonly opts: MapOptions,
  ) {
    this.sep = ctx.count('\n\n');
  }

  /** room() for the window it was last computed for (the window only changes on a provider's report). */
  private roomFor: { window: number; room: number } | null = null;

  /**
   * Room for items in one map request: window − instructions − the map output reservation. The
   * instructions are sized with numbers longer than any real ordinal or index, so the room is a
   * lower bound for every map.
   */
  private room(): number {
    const { ctx } = this;
    if (this.roomFor?.window === ctx.window) return this.roomFor.room;
    const big = ctx.items.length + 1_000_000;
    const envelope = mapEnvelope({ ordinal: big, from: big, to: big + 1 }, { from: big, to: big + 1 }, '', ctx.mapOutput);
    const room = ctx.window - ctx.inputTokens(envelope) - ctx.mapOutput;
    this.roomFor = { window: ctx.window, room };
    return room;
  }

  /**
   * Whether a map request fits the window. The packer's own sum (items + joining allowance) within
   * the room settles it without tokenising the request again; only a segment past that sum (an
   * item larger than the target, or a window that shrank) has its actual request counted, so an
   * indivisible item fails on the request it would really send (cosh).
   */
  private fits(seg: Segment): boolean {
    if (seg.tokens + this.sep * (seg.to - seg.from + 1) <= this.room()) return true;
    return this.ctx.fits(this.request(seg));
  }

  private request(seg: Segment) {
    return mapRequest(this.ctx.items, seg, this.ctx.prefix, this.ctx.mapOutput);
  }

  private add(from: number, to: number, target: number, round: number): void {
    const { ctx } = this;
    for (const p of packSegments(ctx.itemTokens, from, to, target, this.sep)) {
      const ids = ctx.items.slice(p.from, p.to + 1).map((it: SourceItem) => it.id);
      this.targets.set(this.trace.addSegment({ from: p.from, to: p.to, ids, tokens: p.tokens, round }), target);
    }
  }

  private fail(reason: string): Step<never> {
    return { ok: false, reason: `${reason}; ${this.trace.coverage()}` };
  }

  private progress(): void {
    const live = this.trace.live();
    this.ctx.progress({ stage: 'map', done: live.filter((s) => s.status === 'accepted').length, total: live.length });
  }

  async run(): Promise<Step<ReduceInput[]>> {
    const { ctx, trace } = this;
    const room = this.room();
    if (room < 1)
      return {
        ok: false,
        reason: `map instructions and the ${ctx.mapOutput}-token output reservation leave no room for items in the ${ctx.window}-token summarizer window`,
      };
    const target = Math.min(this.opts.segmentTokens ?? room, room);
    this.add(ctx.prefix.from, ctx.prefix.to, target, 0);
    ctx.notes.push(
      `MapReduce: ${trace.segments.length} whole-item segment(s) at a soft target of ${target} tokens; map output reservation ${ctx.mapOutput} tokens of a ${ctx.window}-token summarizer window`,
    );

    for (let round = 0; ; round++) {
      const pending = trace.live().filter((s) => s.status === 'pending');
      // cosh: "An indivisible item that cannot fit that request fails explicitly with source and
      // accepted progress intact. It does not trigger textual slicing or unchanged singleton retries."
      for (const seg of pending) {
        if (seg.from === seg.to && !this.fits(seg)) {
          seg.status = 'failed';
          seg.error = `item #${seg.from} (${seg.tokens} tokens) cannot fit one map request`;
          return this.fail(
            `item #${seg.from} (${seg.tokens} tokens) cannot fit a complete map request (instructions + item + ${ctx.mapOutput} output tokens) in the ${ctx.window}-token summarizer window; it is never cut`,
          );
        }
      }
      this.progress();
      const outcome = await this.round(pending);
      if (!outcome.ok) return outcome;
      const overflowed = outcome.value;
      if (overflowed.length === 0) break;
      const step = this.repartition(overflowed, round + 1);
      if (!step.ok) return step;
    }
    return {
      ok: true,
      value: trace.live().map((s) => ({ label: `map ${s.ordinal}`, from: s.from, to: s.to, text: s.summary ?? '', ref: s.ordinal })),
    };
  }

  /** One pass over the pending maps; returns the ones that overflowed. */
  private async round(segs: readonly Segment[]): Promise<Step<Segment[]>> {
    const { ctx } = this;
    const overflowed: Segment[] = [];
    let failure: string | null = null;
    const runOne = async (seg: Segment): Promise<'continue' | 'stop'> => {
      // Checked before sending: a request that no longer fits (the window shrank) is repartitioned, not sent.
      if (!this.fits(seg)) {
        overflowed.push(seg);
        return 'continue';
      }
      const sent = await ctx.send(this.request(seg));
      if (sent.ok) {
        seg.status = 'accepted';
        seg.summary = sent.text;
        this.progress();
        return 'continue';
      }
      if (sent.kind === 'cancelled') return 'stop';
      seg.error = sent.reason;
      if (sent.kind === 'overflow') {
        ctx.reportWindow(sent.window);
        overflowed.push(seg);
        return 'continue';
      }
      seg.status = 'failed';
      failure ??= sent.reason;
      return 'stop';
    };

    await runPool(segs, this.sequential ? 1 : this.opts.concurrency, ctx.signal, runOne);
    if (ctx.cancelled) return { ok: false, reason: `cancelled; ${this.trace.coverage()}`, cancelled: true };
    if (failure !== null) {
      // cosh: "persists sequential fallback for missing maps".
      this.sequential = true;
      const missing = segs.filter((s) => s.status !== 'accepted' && !overflowed.includes(s));
      ctx.notes.push(
        `provider failure (${failure}): stopped scheduling, drained the maps in flight, ${missing.length} missing map(s) run sequentially`,
      );
      for (const seg of missing) {
        seg.status = 'pending';
        const more = await runOne(seg);
        if (ctx.cancelled) return { ok: false, reason: `cancelled; ${this.trace.coverage()}`, cancelled: true };
        if (more === 'stop') return this.fail(`map stage failed in the sequential fallback: ${seg.error ?? 'unknown error'}`);
      }
    }
    return { ok: true, value: overflowed };
  }

  /**
   * cosh: "Context overflow permits at most three whole-item repartitions of incomplete maps;
   * accepted summaries are not regenerated. Reducing the packing target does not reduce the actual
   * request window unless the provider reports a smaller window. Repartitioning stops when no further
   * item boundaries exist."
   */
  private repartition(overflowed: Segment[], round: number): Step<null> {
    const { ctx, trace } = this;
    const single = overflowed.find((s) => s.from === s.to);
    if (single) {
      single.status = 'failed';
      return this.fail(
        `map ${single.ordinal} (item #${single.from}, ${single.tokens} tokens) overflowed the summarizer and has no further item boundary to repartition at`,
      );
    }
    if (trace.repartitions >= MAX_REPARTITIONS) {
      for (const s of overflowed) s.status = 'failed';
      return this.fail(
        `context overflow persists after ${MAX_REPARTITIONS} whole-item repartitions (maps ${overflowed.map((s) => s.ordinal).join(', ')})`,
      );
    }
    trace.repartitions++;
    const room = this.room();
    if (room < 1) return this.fail(`the ${ctx.window}-token summarizer window leaves no room for items`);
    for (const seg of [...overflowed].sort((a, b) => a.from - b.from)) {
      seg.status = 'repartitioned';
      // Halve the target; below the segment's own size so that a segment of two or more items always splits.
      const prev = this.targets.get(seg) ?? room;
      const target = Math.max(1, Math.min(room, Math.floor(Math.min(prev, seg.tokens + this.sep * (seg.to - seg.from + 1)) / 2)));
      this.add(seg.from, seg.to, target, round);
    }
    ctx.notes.push(
      `repartition ${trace.repartitions}/${MAX_REPARTITIONS}: ${overflowed.length} incomplete map(s) re-packed at a halved target`,
    );
    return { ok: true, value: null };
  }
}

export function runMaps(ctx: RunContext, trace: TraceRecorder, opts: MapOptions): Promise<Step<ReduceInput[]>> {
  return new MapStage(ctx, trace, opts).run();
}
