import type { CoverageSegment } from '../../../shared/api/contract';
import type { EventOf, LogEvent } from '../../../shared/model/event';
import type { CompactionRecord } from '../../../shared/replay/records';
import type { SessionInspector } from '../../session/inspector';
import { blocksText, hydrated, longText } from './text';

/**
 * The MapReduce side of a compaction (cosh): stagings, maps, repartitions, the reduction tree,
 * rereads, audits and corrections as the log records them, and the coverage of the source range by
 * the segments in force at the commit — what COVERAGE_GAP / COVERAGE_OVERLAP judge, drawn instead.
 */

type Ev<K extends LogEvent['kind']> = EventOf<K> & LogEvent;

function eventsOf<K extends LogEvent['kind']>(inspector: SessionInspector, seqs: readonly number[], kind: K): Ev<K>[] {
  const out: Ev<K>[] = [];
  for (const s of seqs) {
    const e = inspector.session.events.at(s);
    if (e && e.kind === kind) out.push(e as Ev<K>);
  }
  return out;
}

/** The segmentation in force before `until`: the latest staging, then repartitions of what was not accepted; each with its map status. */
export function coverageAt(
  stagings: readonly Ev<'mapreduce/staging'>[],
  maps: readonly Ev<'mapreduce/map'>[],
  repartitions: readonly Ev<'mapreduce/repartition'>[],
  until: number,
): CoverageSegment[] {
  const steps = [...stagings, ...maps, ...repartitions].filter((e) => e.seq < until).sort((a, b) => a.seq - b.seq);
  const segs = new Map<number, CoverageSegment>();
  for (const e of steps) {
    if (e.kind === 'mapreduce/staging') {
      segs.clear();
      for (const s of e.segments) segs.set(s.ordinal, { ordinal: s.ordinal, items: s.items, status: 'pending', from: e.seq });
    } else if (e.kind === 'mapreduce/map') {
      const s = segs.get(e.ordinal);
      if (s) segs.set(e.ordinal, { ...s, status: e.status });
    } else {
      const replaced = e.replaces ?? [...segs.values()].filter((s) => s.status !== 'accepted').map((s) => s.ordinal);
      for (const o of replaced) segs.delete(o);
      for (const s of e.segments) segs.set(s.ordinal, { ordinal: s.ordinal, items: s.items, status: 'pending', from: e.seq });
    }
  }
  return [...segs.values()].sort((a, b) => a.ordinal - b.ordinal);
}

const text = async (inspector: SessionInspector, seq: number, pick: (e: LogEvent) => Parameters<typeof blocksText>[0] | undefined) => {
  const e = await hydrated(inspector.session, seq);
  const blocks = pick(e);
  return blocks ? longText(blocksText(blocks)) : null;
};

export async function mapReduceDetail(inspector: SessionInspector, branch: string, c: CompactionRecord) {
  const mr = c.mapreduce;
  const state = inspector.replay(branch);
  const stagings = eventsOf(inspector, mr.stagingSeqs, 'mapreduce/staging');
  const maps = eventsOf(inspector, mr.mapSeqs, 'mapreduce/map');
  const repartitions = eventsOf(inspector, mr.repartitionSeqs, 'mapreduce/repartition');
  const reductions = eventsOf(inspector, mr.reduceSeqs, 'mapreduce/reduce');
  const corrections = eventsOf(inspector, mr.correctionSeqs, 'mapreduce/correction');

  const commit = c.checkpointItems.map((id) => state.itemById.get(id)?.seq).find((s) => s !== undefined) ?? null;
  const all = [...mr.stagingSeqs, ...mr.mapSeqs, ...mr.repartitionSeqs];
  const atSeq = commit ?? c.endSeq ?? (all.length > 0 ? Math.max(...all) : null);
  const segments = coverageAt(stagings, maps, repartitions, commit ?? c.endSeq ?? Number.POSITIVE_INFINITY);
  let axisIds: readonly string[] = c.source;
  if (axisIds.length === 0) {
    const named = new Set<string>();
    for (const s of segments) for (const id of s.items) named.add(id);
    axisIds = [...named].sort((a, b) => (state.itemById.get(a)?.seq ?? 0) - (state.itemById.get(b)?.seq ?? 0));
  }

  const mapRows = [];
  for (const e of maps) {
    mapRows.push({
      seq: e.seq,
      ordinal: e.ordinal,
      status: e.status,
      request: e.request ?? null,
      finish: e.finish ?? null,
      usage: e.usage ?? null,
      summary: e.summary ? await text(inspector, e.seq, (h) => (h.kind === 'mapreduce/map' ? h.summary : undefined)) : null,
    });
  }
  const reductionRows = [];
  for (const e of reductions) {
    reductionRows.push({
      seq: e.seq,
      level: e.level,
      inputs: e.inputs,
      final: e.final ?? false,
      request: e.request ?? null,
      finish: e.finish ?? null,
      usage: e.usage ?? null,
      output: e.output ? await text(inspector, e.seq, (h) => (h.kind === 'mapreduce/reduce' ? h.output : undefined)) : null,
    });
  }
  const correctionRows = [];
  for (const e of corrections) {
    correctionRows.push({
      seq: e.seq,
      n: e.n,
      accepted: e.accepted,
      request: e.request ?? null,
      output: e.output ? await text(inspector, e.seq, (h) => (h.kind === 'mapreduce/correction' ? h.output : undefined)) : null,
    });
  }
  return {
    stagings: stagings.map((e) => ({ seq: e.seq, version: e.version, fingerprint: e.fingerprint, segments: e.segments })),
    maps: mapRows,
    repartitions: repartitions.map((e) => ({ seq: e.seq, attempt: e.attempt, replaces: e.replaces ?? null, segments: e.segments })),
    reductions: reductionRows,
    rereads: eventsOf(inspector, mr.rereadSeqs, 'mapreduce/reread').map((e) => ({
      seq: e.seq,
      ranges: e.ranges,
      status: e.status,
      reduction: e.reduction ?? null,
    })),
    audits: eventsOf(inspector, mr.auditSeqs, 'mapreduce/audit').map((e) => ({
      seq: e.seq,
      verdict: e.verdict,
      issues: e.issues ?? [],
      request: e.request ?? null,
    })),
    corrections: correctionRows,
    coverage: { axis: axisIds.map((id) => ({ id, seq: state.itemById.get(id)?.seq ?? null })), segments, atSeq },
  };
}
