import type { BudgetPolicy, EventOf } from '../../../shared/model/event';
import type { JsonLine } from '../../reader/types';
import type { Branch, OpenCompaction } from './branches';
import type { CoshMachine } from './machine';
import type { Envelope, Staging } from './parse';

// Staging (MapReduce and legacy split) as a compaction bracket.

export function policy(b: Branch): BudgetPolicy {
  const w = b.state.context?.maxTokens;
  const p: BudgetPolicy = { name: 'cosh (COMPACT_PCT 80, RECENT_RAW_PCT 20)', triggerRatio: 0.8, rawTailRatio: 0.2 };
  if (w !== undefined && w > 0) p.window = w;
  return p;
}

function openBracket(mc: CoshMachine, b: Branch, l: JsonLine, ev: Envelope, strategy: string): OpenCompaction {
  if (b.open) return b.open;
  const id = `cmp-e${ev.eventId}`;
  const startSeq = mc.emit({ kind: 'compaction/start', id, trigger: 'unknown', strategy, policy: policy(b) }, l, b.state.name);
  b.open = { id, startSeq, strategy };
  return b.open;
}

function canonOf(b: Branch, coshId: number): string {
  return b.state.context?.byId.get(coshId)?.canon ?? String(coshId);
}

function segments(b: Branch, s: Staging): { ordinal: number; items: string[] }[] {
  return s.segments.filter((x) => x.itemIds.length > 0).map((x) => ({ ordinal: x.ordinal, items: x.itemIds.map((id) => canonOf(b, id)) }));
}

export function staging(
  mc: CoshMachine,
  b: Branch,
  l: JsonLine,
  ev: Envelope,
  prev: Staging | null,
  next: Staging | null,
  splitBefore: boolean,
  splitNow: boolean,
): void {
  const branch = b.state.name;
  if (next) {
    const open = openBracket(mc, b, l, ev, 'mapreduce');
    const version = next.version;
    if (version !== 1 && version !== 2 && version !== 3) {
      mc.record(l, branch, 'context/map_reduce', `staging version ${String(version)}: not understood`);
      mc.out.report(
        'COSH_STAGING_VERSION',
        'warning',
        `Line ${l.line}: MapReduce staging version ${String(version)}; versions 1, 2 and 3 are known. Kept as a record.`,
        [],
        l.line,
      );
      return;
    }
    const structural =
      !prev ||
      prev.version !== version ||
      prev.fingerprint !== next.fingerprint ||
      JSON.stringify(prev.sourceIds) !== JSON.stringify(next.sourceIds);
    const prevOrdinals = new Set(prev?.segments.map((x) => x.ordinal) ?? []);
    if (!structural && prev && next.repartitions > prev.repartitions) {
      const replaces = prev.segments
        .filter((x) => x.summary === null && !next.segments.some((y) => y.ordinal === x.ordinal))
        .map((x) => x.ordinal);
      const fresh = segments(b, { ...next, segments: next.segments.filter((x) => !prevOrdinals.has(x.ordinal)) });
      const e: EventOf<'mapreduce/repartition'> = {
        kind: 'mapreduce/repartition',
        compactionId: open.id,
        attempt: next.repartitions,
        segments: fresh,
      };
      if (replaces.length > 0) e.replaces = replaces;
      mc.emit(e, l, branch);
    } else if (
      structural ||
      JSON.stringify(prev?.segments.map((x) => [x.ordinal, x.itemIds])) !== JSON.stringify(next.segments.map((x) => [x.ordinal, x.itemIds]))
    ) {
      mc.emit(
        { kind: 'mapreduce/staging', compactionId: open.id, version, fingerprint: next.fingerprint, segments: segments(b, next) },
        l,
        branch,
      );
    }
    for (const seg of next.segments) {
      if (seg.summary === null) continue;
      const before = structural ? undefined : prev?.segments.find((x) => x.ordinal === seg.ordinal);
      if (before && before.summary !== null) continue;
      mapEvent(mc, b, l, ev, seg.ordinal, seg.summary);
    }
    const notes: string[] = [];
    if (next.phase !== null && next.phase !== prev?.phase)
      notes.push(`phase ${next.phase}${next.level > 0 ? ` (level ${next.level})` : ''}`);
    if (next.candidate !== null && next.candidate !== prev?.candidate) notes.push(`candidate: ${next.candidate}`);
    if (next.audits > (prev?.audits ?? 0)) notes.push(`${next.audits - (prev?.audits ?? 0)} audit(s) recorded`);
    if (notes.length > 0) mc.record(l, branch, 'context/map_reduce', notes.join('; '));
  } else if (splitNow && !splitBefore) {
    const open = openBracket(mc, b, l, ev, 'split');
    // A legacy split buffer: sequential chunk summaries, no segments.
    mc.emit({ kind: 'mapreduce/staging', compactionId: open.id, version: null, fingerprint: '', segments: [] }, l, branch);
  }
  const c = b.state.context;
  if (b.open && c && c.mapReduce === null && c.split === null) {
    const id = b.open.id;
    b.open = null;
    mc.emit(
      {
        kind: 'compaction/end',
        id,
        outcome: 'failed',
        error: {
          message:
            'The staging was discarded with no checkpoint committed; the log does not say why (abort, invalidation or a failed summarizer).',
        },
      },
      l,
      branch,
    );
  }
}

export function mapEvent(mc: CoshMachine, b: Branch, l: JsonLine, ev: Envelope, ordinal: number, summary: string): void {
  const branch = b.state.name;
  const open = openBracket(mc, b, l, ev, 'mapreduce');
  mc.emit(
    { kind: 'mapreduce/map', compactionId: open.id, ordinal, status: 'accepted', summary: [{ type: 'text', text: summary }] },
    l,
    branch,
  );
}
