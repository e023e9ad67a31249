import type { Diagnostic } from '../../model/diagnostic';
import type { EventOf, LogEvent } from '../../model/event';
import type { CompactionFacts } from '../facts';
import { finding, list, num, plural } from '../text';
import type { Rule, RuleContext } from '../types';

/**
 * MapReduce (cosh): whole-item segments that cover the source exactly once, staging that is
 * rebuilt rather than reused when the source changed or was written by a legacy build, audits that
 * pass before a commit, and the bounds cosh sets on concurrency, repartitions, levels, corrections
 * and rereads.
 */

type Ev<K extends LogEvent['kind']> = EventOf<K> & LogEvent;
type Step = Ev<'mapreduce/staging'> | Ev<'mapreduce/map'> | Ev<'mapreduce/repartition'>;

interface Segmentation {
  /** Segments in force at the commit, by ordinal. */
  readonly segments: Map<number, readonly string[]>;
  /** The event that last set each ordinal's segment. */
  readonly from: Map<number, number>;
}

function steps(c: CompactionFacts, until: number): Step[] {
  return [...c.stagings, ...c.maps, ...c.repartitions].filter((e) => e.seq < until).sort((a, b) => a.seq - b.seq);
}

/** The segmentation in force before `until`: the latest staging, then repartitions of what was not accepted. */
function segmentation(c: CompactionFacts, until: number): Segmentation | null {
  let segs: Map<number, readonly string[]> | null = null;
  const from = new Map<number, number>();
  const accepted = new Set<number>();
  for (const e of steps(c, until)) {
    if (e.kind === 'mapreduce/staging') {
      segs = new Map(e.segments.map((s) => [s.ordinal, s.items]));
      from.clear();
      for (const s of e.segments) from.set(s.ordinal, e.seq);
    } else if (e.kind === 'mapreduce/map') {
      if (e.status === 'accepted') accepted.add(e.ordinal);
    } else if (segs) {
      const replaced = e.replaces ?? [...segs.keys()].filter((o) => !accepted.has(o));
      for (const o of replaced) {
        segs.delete(o);
        from.delete(o);
      }
      for (const s of e.segments) {
        segs.set(s.ordinal, s.items);
        from.set(s.ordinal, e.seq);
      }
    }
  }
  if (!segs || segs.size === 0) return null;
  return { segments: segs, from };
}

const committed = (c: CompactionFacts): c is CompactionFacts & { commitSeq: number } => c.commitSeq !== null && c.checkpoints.length > 0;

interface Coverage {
  readonly c: CompactionFacts & { commitSeq: number };
  readonly seg: Segmentation;
  readonly ordinals: number[];
}

function coverages(ctx: RuleContext): Coverage[] {
  const out: Coverage[] = [];
  for (const c of ctx.facts.compactions) {
    if (!committed(c) || c.stagings.length === 0) continue;
    const seg = segmentation(c, c.commitSeq);
    if (seg) out.push({ c, seg, ordinals: [...seg.segments.keys()].sort((a, b) => a - b) });
  }
  return out;
}

export const COVERAGE_GAP: Rule = {
  id: 'COVERAGE_GAP',
  severities: ['error'],
  title: 'MapReduce segments leave items of the source range uncovered',
  origins: ['001'],
  run(ctx) {
    const out: Diagnostic[] = [];
    for (const { c, seg } of coverages(ctx)) {
      if (c.source.length === 0) continue;
      const covered = new Set<string>();
      for (const items of seg.segments.values()) for (const id of items) covered.add(id);
      const gap = c.source.filter((id) => !covered.has(id));
      if (gap.length === 0) continue;
      const recs = gap.map((id) => ctx.state.itemById.get(id)).filter((x) => x !== undefined);
      out.push(
        finding(
          'COVERAGE_GAP',
          'error',
          `The segments of compaction ${c.id} leave ${plural(gap.length, 'item')} of its source uncovered (${list(gap)}): no map summarised ${gap.length === 1 ? 'it' : 'them'}, yet the checkpoint replaced the whole range, so ${gap.length === 1 ? 'it is' : 'they are'} lost from the view.`,
          [c.commitSeq, ...seg.from.values(), ...recs.map((x) => x.seq)],
        ),
      );
    }
    return out;
  },
};

export const COVERAGE_OVERLAP: Rule = {
  id: 'COVERAGE_OVERLAP',
  severities: ['error'],
  title: 'MapReduce segments cover an item twice, or reach beyond the source range',
  origins: ['001'],
  run(ctx) {
    const out: Diagnostic[] = [];
    for (const { c, seg, ordinals } of coverages(ctx)) {
      const owners = new Map<string, number[]>();
      for (const o of ordinals)
        for (const id of seg.segments.get(o) ?? []) {
          let l = owners.get(id);
          if (!l) owners.set(id, (l = []));
          l.push(o);
        }
      const twice = [...owners].filter(([, os]) => os.length > 1);
      if (twice.length > 0) {
        const [id, os] = twice[0] as [string, number[]];
        out.push(
          finding(
            'COVERAGE_OVERLAP',
            'error',
            `The segments of compaction ${c.id} cover ${plural(twice.length, 'item')} more than once (first: "${id}" in segments ${os.join(' and ')}): the summary counts ${twice.length === 1 ? 'it' : 'them'} twice, and an accepted map may repeat another.`,
            [c.commitSeq, ...os.map((o) => seg.from.get(o) ?? c.commitSeq)],
          ),
        );
      }
      if (c.source.length > 0) {
        const inSource = new Set(c.source);
        const beyond = [...owners.keys()].filter((id) => !inSource.has(id) && ctx.state.itemById.has(id));
        if (beyond.length > 0) {
          out.push(
            finding(
              'COVERAGE_OVERLAP',
              'error',
              `The segments of compaction ${c.id} reach beyond its source range (${list(beyond)}): maps summarised items the checkpoint does not replace, so they appear both in the summary and verbatim.`,
              [c.commitSeq, ...seg.from.values()],
            ),
          );
        }
      }
    }
    return out;
  },
};

export const ITEM_CUT: Rule = {
  id: 'ITEM_CUT',
  severities: ['error', 'warning'],
  title: 'A MapReduce segment is not a range of whole items (a cut item, a cut range, or a cut unit)',
  origins: ['001'],
  run(ctx) {
    const out: Diagnostic[] = [];
    for (const c of ctx.facts.compactions) {
      if (!committed(c)) continue;
      for (const e of [...c.stagings, ...c.repartitions]) {
        const unknown = e.segments.flatMap((s) => s.items).filter((id) => !ctx.state.itemById.has(id));
        if (unknown.length === 0) continue;
        out.push(
          finding(
            'ITEM_CUT',
            'error',
            `${e.kind === 'mapreduce/staging' ? 'The staging' : 'The repartition'} of compaction ${c.id} at seq ${e.seq} names ${plural(unknown.length, 'segment item')} that ${unknown.length === 1 ? 'is' : 'are'} no whole item of the log (${list(unknown)}): an item cut at a byte or token offset. Items are never cut; an item larger than the target gets a segment of its own.`,
            [e.seq],
          ),
        );
      }
    }
    for (const { c, seg, ordinals } of coverages(ctx)) {
      const pos = new Map(c.source.map((id, i) => [id, i]));
      for (const o of ordinals) {
        const items = seg.segments.get(o) ?? [];
        const idx = items.map((id) => pos.get(id)).filter((i) => i !== undefined);
        if (idx.length < 2 || c.source.length === 0) continue;
        const contiguous = idx.every((v, i) => i === 0 || v === (idx[i - 1] as number) + 1);
        if (!contiguous) {
          out.push(
            finding(
              'ITEM_CUT',
              'error',
              `Segment ${o} of compaction ${c.id} (${list(items)}) is not a contiguous range of the source in order: a map must summarise exact item ranges, or its summary mixes unrelated history.`,
              [seg.from.get(o) ?? c.commitSeq],
            ),
          );
        }
      }
      // A unit cut between two segments: a map summarises a call without its result.
      const members = new Map(ordinals.map((o) => [o, new Set(seg.segments.get(o) ?? [])]));
      const seen = new Set<string>();
      for (const o of ordinals) {
        const mine = members.get(o) ?? new Set<string>();
        for (const id of mine) {
          const rec = ctx.state.itemById.get(id);
          if (!rec) continue;
          for (const callId of ctx.facts.callsOf(rec)) {
            if (seen.has(callId)) continue;
            const results = ctx.facts.resultItems.get(callId) ?? [];
            if (results.length === 0 || results.some((r) => mine.has(r.id))) continue;
            const other = results.find((r) => ordinals.some((x) => x !== o && members.get(x)?.has(r.id)));
            if (!other) continue;
            seen.add(callId);
            const where = ordinals.find((x) => x !== o && members.get(x)?.has(other.id));
            out.push(
              finding(
                'ITEM_CUT',
                'warning',
                `Segment ${o} of compaction ${c.id} holds the tool call ${callId} (item ${id}) and segment ${where} its result ${other.id}: the segmentation cuts a unit, so one map summarises a call without knowing its outcome.`,
                [seg.from.get(o) ?? c.commitSeq, rec.seq, other.seq],
              ),
            );
          }
        }
      }
    }
    return out;
  },
};

const LEGACY = (v: 1 | 2 | 3 | null): boolean => v !== 3;
const versionName = (v: 1 | 2 | 3 | null): string => (v === null ? 'unversioned legacy split buffer' : `version ${v}`);

export const STALE_STAGING_REUSED: Rule = {
  id: 'STALE_STAGING_REUSED',
  severities: ['error', 'warning'],
  title: 'MapReduce staging reused after its source changed, or legacy staging text reused instead of rebuilt',
  origins: ['001'],
  run(ctx) {
    const out: Diagnostic[] = [];
    let firstV3: number | null = null;
    for (const e of ctx.facts.ofKinds('mapreduce/staging')) {
      if (e.version === 3) {
        firstV3 = e.seq;
        break;
      }
    }
    for (const c of ctx.facts.compactions) {
      if (!committed(c) || c.stagings.length === 0) continue;
      // Accepted maps, and whether the staging they were made under is still valid.
      const accepted = new Map<number, { seq: number; stale: string | null }>();
      let current: Ev<'mapreduce/staging'> | null = null;
      for (const e of steps(c, c.commitSeq)) {
        if (e.kind === 'mapreduce/staging') {
          if (current) {
            let why: string | null = null;
            if (LEGACY(current.version))
              why = `${versionName(current.version)} staging (seq ${current.seq}), which must be rebuilt from the immutable source`;
            else if (current.fingerprint !== e.fingerprint)
              why = `staging of fingerprint ${current.fingerprint || '(none)'} (seq ${current.seq}); the source fingerprint is now ${e.fingerprint || '(none)'}`;
            if (why) for (const a of accepted.values()) a.stale ??= why;
          }
          current = e;
        } else if (e.kind === 'mapreduce/map') {
          if (e.status === 'accepted') accepted.set(e.ordinal, { seq: e.seq, stale: null });
        } else {
          for (const o of e.replaces ?? []) accepted.delete(o);
        }
      }
      const seg = segmentation(c, c.commitSeq);
      const stale = [...accepted].filter(([o, a]) => a.stale !== null && (!seg || seg.segments.has(o)));
      const cited = new Set(c.checkpoints.flatMap((k) => k.sources));
      for (const [o, a] of stale) {
        out.push(
          finding(
            'STALE_STAGING_REUSED',
            'error',
            `Compaction ${c.id} committed with map ${o} (seq ${a.seq}) accepted under ${a.stale}: the map was never re-run after the staging was replaced${cited.has(a.seq) ? ', and the checkpoint cites it' : ''}. Stale staging must not be reused; its segments are mapped again from the current source.`,
            [a.seq, c.commitSeq],
          ),
        );
      }
      if (current && LEGACY(current.version)) {
        const current3 = firstV3 !== null && firstV3 < c.firstSeq;
        out.push(
          finding(
            'STALE_STAGING_REUSED',
            current3 ? 'error' : 'warning',
            `Compaction ${c.id} committed from ${versionName(current.version)} staging (seq ${current.seq}) without rebuilding it${current3 ? ', although this log already shows version-3 staging' : ''}: legacy staging is read for compatibility only, and its generated text must not become a checkpoint.${current3 ? '' : ' (The log may come from a build that predates the rebuild.)'}`,
            [current.seq, c.commitSeq],
          ),
        );
      }
    }
    return out;
  },
};

export const AUDIT_FAILED_COMMITTED: Rule = {
  id: 'AUDIT_FAILED_COMMITTED',
  severities: ['error'],
  title: 'A MapReduce candidate was committed although its last audit failed or a correction was not audited again',
  origins: ['001'],
  run(ctx) {
    const out: Diagnostic[] = [];
    for (const c of ctx.facts.compactions) {
      if (!committed(c) || c.audits.length === 0) continue;
      const audits = c.audits.filter((a) => a.seq < c.commitSeq);
      const last = audits[audits.length - 1];
      if (!last) continue;
      if (last.verdict === 'fail') {
        out.push(
          finding(
            'AUDIT_FAILED_COMMITTED',
            'error',
            `Compaction ${c.id} committed although its last audit (seq ${last.seq}) failed${last.issues && last.issues.length > 0 ? ` (${last.issues[0]})` : ''}: a candidate that fails its audit is corrected and audited again, or rejected.`,
            [last.seq, c.commitSeq],
          ),
        );
        continue;
      }
      const unaudited = c.corrections.filter((k) => k.accepted && k.seq > last.seq && k.seq < c.commitSeq);
      if (unaudited.length > 0) {
        out.push(
          finding(
            'AUDIT_FAILED_COMMITTED',
            'error',
            `Compaction ${c.id} committed correction ${unaudited.map((k) => k.n).join(', ')} without auditing it again: corrections are revalidated before they become a checkpoint.`,
            [...unaudited.map((k) => k.seq), c.commitSeq],
          ),
        );
      }
    }
    return out;
  },
};

/** cosh's bounds. */
export const MAPREDUCE_BOUNDS = { concurrentMaps: 4, repartitions: 3, levels: 8, corrections: 2, rereadsPerReduction: 1 } as const;

export const MAPREDUCE_LIMIT_EXCEEDED: Rule = {
  id: 'MAPREDUCE_LIMIT_EXCEEDED',
  severities: ['warning'],
  title: 'MapReduce exceeded a recovery bound: concurrent maps, repartitions, reduction levels, corrections or rereads',
  origins: ['001'],
  run(ctx) {
    const out: Diagnostic[] = [];
    const B = MAPREDUCE_BOUNDS;
    for (const c of ctx.facts.compactions) {
      const maps = c.requests.filter((r) => r.purpose === 'map');
      let peak = 0;
      let peakSeq = 0;
      for (const r of maps) {
        const inFlight = maps.filter((x) => x.seq <= r.seq && (x.responseSeq === null || x.responseSeq > r.seq)).length;
        if (inFlight > peak) {
          peak = inFlight;
          peakSeq = r.seq;
        }
      }
      if (peak > B.concurrentMaps) {
        out.push(
          finding(
            'MAPREDUCE_LIMIT_EXCEEDED',
            'warning',
            `Compaction ${c.id} had ${num(peak)} map calls in flight at once (at most ${B.concurrentMaps} run concurrently).`,
            [peakSeq],
          ),
        );
      }
      if (c.repartitions.length > B.repartitions) {
        out.push(
          finding(
            'MAPREDUCE_LIMIT_EXCEEDED',
            'warning',
            `Compaction ${c.id} repartitioned ${num(c.repartitions.length)} times (at most ${B.repartitions} whole-item repartitions are permitted; then it must fail explicitly).`,
            c.repartitions.map((e) => e.seq),
          ),
        );
      }
      const deep = c.reduces.filter((r) => r.level >= B.levels);
      if (deep.length > 0) {
        out.push(
          finding(
            'MAPREDUCE_LIMIT_EXCEEDED',
            'warning',
            `Compaction ${c.id} reduced at level ${num(Math.max(...deep.map((r) => r.level)))} (levels 0–${B.levels - 1}: ${B.levels} reduction levels bound non-converging output).`,
            deep.map((r) => r.seq),
          ),
        );
      }
      if (c.corrections.length > B.corrections) {
        out.push(
          finding(
            'MAPREDUCE_LIMIT_EXCEEDED',
            'warning',
            `Compaction ${c.id} made ${num(c.corrections.length)} corrections (at most ${B.corrections} bound non-converging output).`,
            c.corrections.map((e) => e.seq),
          ),
        );
      }
      // One reread per reduction request: by the reduction it names, or between two reductions.
      const byReduction = new Map<string, number[]>();
      let bucket = 0;
      const events = [...c.rereads, ...c.reduces].sort((a, b) => a.seq - b.seq);
      for (const e of events) {
        if (e.kind === 'mapreduce/reduce') {
          bucket++;
          continue;
        }
        const k = e.reduction ? `L${e.reduction.level}#${e.reduction.index}` : `before reduction ${bucket}`;
        let l = byReduction.get(k);
        if (!l) byReduction.set(k, (l = []));
        l.push(e.seq);
      }
      for (const [k, seqs] of byReduction) {
        if (seqs.length <= B.rereadsPerReduction) continue;
        out.push(
          finding(
            'MAPREDUCE_LIMIT_EXCEEDED',
            'warning',
            `Compaction ${c.id} made ${num(seqs.length)} rereads for one reduction (${k}): one reread attempt is permitted per reduction request.`,
            seqs,
          ),
        );
      }
    }
    return out;
  },
};
