import type { ItemId } from '../../model/item';
import type { MapReduceTrace, SegmentStatus } from '../types';

/** One map segment as the run tracks it (cosh: "Each map has a stable ordinal, exact item ranges, and ordered whole-item IDs"). */
export interface Segment {
  readonly ordinal: number;
  readonly from: number;
  readonly to: number;
  readonly ids: readonly ItemId[];
  readonly tokens: number;
  readonly round: number;
  status: SegmentStatus;
  summary: string | null;
  error: string | null;
}

/**
 * The MapReduce record as it grows. The application, not the model, owns coverage metadata (cosh):
 * segment ranges and ids come from the packer, never from a model's answer.
 *
 * `reductions[].inputs`: at level 1 the ordinals of the map segments reduced; at level n > 1 the
 * indices (into `reductions`) of the level n−1 reductions whose outputs were reduced — enough to
 * draw the reduction tree.
 */
export class TraceRecorder {
  readonly segments: Segment[] = [];
  repartitions = 0;
  readonly reductions: { level: number; inputs: number[]; ok: boolean }[] = [];
  readonly rereads: { ranges: (readonly [number, number])[]; ok: boolean; reason?: string }[] = [];
  readonly audits: { ok: boolean; corrections: number; findings?: string }[] = [];
  private nextOrdinal = 1;

  addSegment(s: Omit<Segment, 'ordinal' | 'status' | 'summary' | 'error'>): Segment {
    const seg: Segment = { ...s, ordinal: this.nextOrdinal++, status: 'pending', summary: null, error: null };
    this.segments.push(seg);
    return seg;
  }

  /** Segments that stand for their range now (not replaced by a repartition), in source order. */
  live(): Segment[] {
    return this.segments.filter((s) => s.status !== 'repartitioned').sort((a, b) => a.from - b.from);
  }

  /** "accepted 1, 2 (items #0–#9); failed 3; pending 4, 5" — the coverage a failure reports. */
  coverage(): string {
    const live = this.live();
    const of = (st: SegmentStatus) => live.filter((s) => s.status === st);
    const accepted = of('accepted');
    const items = accepted.reduce((n, s) => n + s.ids.length, 0);
    const parts = [`accepted maps: ${accepted.length > 0 ? accepted.map((s) => s.ordinal).join(', ') : 'none'} (${items} items)`];
    if (of('failed').length > 0)
      parts.push(
        `failed: ${of('failed')
          .map((s) => s.ordinal)
          .join(', ')}`,
      );
    if (of('pending').length > 0)
      parts.push(
        `pending: ${of('pending')
          .map((s) => s.ordinal)
          .join(', ')}`,
      );
    return `${parts.join('; ')} of ${live.length}`;
  }

  toTrace(): MapReduceTrace {
    return {
      segments: this.segments.map((s) => ({
        ordinal: s.ordinal,
        from: s.from,
        to: s.to,
        ids: [...s.ids],
        tokens: s.tokens,
        status: s.status,
        round: s.round,
      })),
      repartitions: this.repartitions,
      reductions: this.reductions.map((r) => ({ level: r.level, inputs: [...r.inputs], ok: r.ok })),
      rereads: this.rereads.map((r) => ({
        ranges: r.ranges.map(([a, b]) => [a, b] as const),
        ok: r.ok,
        ...(r.reason !== undefined ? { reason: r.reason } : {}),
      })),
      audits: this.audits.map((a) => ({
        ok: a.ok,
        corrections: a.corrections,
        ...(a.findings !== undefined ? { findings: a.findings } : {}),
      })),
    };
  }
}
