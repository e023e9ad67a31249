import type { Diagnostic } from '../../model/diagnostic';
import { eventsOfKind } from '../../model/event-log';
import type { CompactionFacts } from '../facts';
import { isAutomatic, isFailedAttempt } from '../facts';
import { upperBound } from '../../seq-search';
import { finding, list, num, plural } from '../text';
import type { Rule, RuleContext } from '../types';

/**
 * The compaction bracket over time: the log-recorded lock (DeepSeek Harness), retries within a turn
 * (cosh's summary_failure_loop, the Conversation Compaction article's circuit breaker), half-written
 * commits (Rind) and loud fallbacks (the Conversation Compaction article).
 */

export const ORPHAN_COMPACTION_START: Rule = {
  id: 'ORPHAN_COMPACTION_START',
  severities: ['error', 'info'],
  title: 'A compaction start without an end: a held lock in the current lifecycle, or stale evidence before a boundary',
  origins: ['004'],
  run(ctx) {
    const out: Diagnostic[] = [];
    const boundaries = ctx.facts.processBoundaries;
    const starts = ctx.facts.compactions
      .filter((c) => c.start !== null)
      .map((c) => c.start?.seq ?? 0)
      .sort((a, b) => a - b);
    // Ends on any branch: a branch forked inside a bracket (a summarizer logged as a subagent)
    // inherits the start; the bracket is closed on the branch that owns it.
    let endsElsewhere: Map<string, number[]> | null = null;
    for (const c of ctx.facts.compactions) {
      if (!c.start || c.end) continue;
      const s = c.start.seq;
      endsElsewhere ??= (() => {
        const m = new Map<string, number[]>();
        // Every branch's ends (a summarizer may be logged as its own branch).
        for (const e of eventsOfKind(ctx.events, 'compaction/end')) {
          let l = m.get(e.id);
          if (!l) m.set(e.id, (l = []));
          l.push(e.seq);
        }
        return m;
      })();
      if ((endsElsewhere.get(c.id) ?? []).some((x) => x > s)) continue;
      const boundary = boundaries[upperBound(boundaries, s)];
      if (boundary !== undefined) {
        const e = ctx.facts.event(boundary);
        const name = e?.kind === 'lifecycle' ? e.boundary : 'boundary';
        out.push(
          finding(
            'ORPHAN_COMPACTION_START',
            'info',
            `Compaction ${c.id} started at seq ${s} and never ended before the ${name} at seq ${boundary}: stale evidence of a process that stopped inside the bracket. It does not block later compactions.`,
            [s, boundary],
          ),
        );
        continue;
      }
      const later = starts.filter((x) => x > s);
      out.push(
        finding(
          'ORPHAN_COMPACTION_START',
          'error',
          `Compaction ${c.id} started at seq ${s} and has no compaction/end in the current lifecycle: its log-recorded lock is still held, so every later compaction of this lifecycle is refused as busy${later.length > 0 ? ` — yet ${plural(later.length, 'compaction')} started after it (first at seq ${later[0]})` : ''}. A crashed process leaves this; the next process must mark a process-start (or end-seed) so the start becomes stale.`,
          [s, ...later.slice(0, 5)],
        ),
      );
    }
    return out;
  },
};

/** What a failed attempt failed on: finish reason or error code, and the output ceiling sent. */
function failureKey(c: CompactionFacts): { key: string; text: string } {
  const finish = c.record.finish?.reason ?? null;
  const code = c.record.error?.code ?? null;
  let maxOutput: number | null = null;
  for (const r of c.requests) if (r.route.maxOutput !== undefined) maxOutput = r.route.maxOutput;
  for (const e of c.summaryErrors) if (e.route?.maxOutput !== undefined) maxOutput = e.route.maxOutput;
  for (const e of c.summaries) if (e.route?.maxOutput !== undefined) maxOutput = e.route.maxOutput;
  const parts: string[] = [];
  if (finish !== null && finish !== 'stop') parts.push(`finish reason ${finish}`);
  else if (code !== null) parts.push(`error ${code}`);
  else if (c.record.error?.message) parts.push(`"${c.record.error.message}"`);
  if (maxOutput !== null) parts.push(`output ceiling ${num(maxOutput)}`);
  const key =
    parts.length > 0 && ((finish !== null && finish !== 'stop') || code !== null || c.record.error?.message) ? parts.join(', ') : '';
  return { key, text: parts.join(', ') };
}

export const RETRY_LOOP: Rule = {
  id: 'RETRY_LOOP',
  severities: ['error', 'warning'],
  title: 'Repeated failed automatic compaction attempts within one turn',
  origins: ['001', '002'],
  run(ctx) {
    const out: Diagnostic[] = [];
    const byTurn = new Map<number, CompactionFacts[]>();
    for (const c of ctx.facts.compactions) {
      if (!c.start || !isAutomatic(c) || !isFailedAttempt(c)) continue;
      const t = ctx.facts.turnAt(c.start.seq);
      let l = byTurn.get(t);
      if (!l) byTurn.set(t, (l = []));
      l.push(c);
    }
    for (const attempts of byTurn.values()) {
      if (attempts.length < 2) continue;
      const first = attempts[0] as CompactionFacts;
      const lastStart = attempts[attempts.length - 1]?.start?.seq ?? 0;
      const dispatches = ctx.state.items.filter(
        (r) => r.seq > (first.start?.seq ?? 0) && r.seq < lastStart && ctx.facts.callsOf(r).length > 0,
      ).length;
      const seqs = attempts.map((c) => c.start?.seq ?? c.firstSeq);
      const breaker = attempts.map((c) => c.policy?.breaker).find((b) => b !== undefined);
      const keys = attempts.map(failureKey);
      const counts = new Map<string, number>();
      for (const k of keys) if (k.key !== '') counts.set(k.key, (counts.get(k.key) ?? 0) + 1);
      const repeated = [...counts].filter(([, n]) => n >= 2).sort((a, b) => b[1] - a[1])[0];
      const between = dispatches > 0 ? ` with ${plural(dispatches, 'tool call')} dispatched between them` : '';
      if (breaker) {
        if (attempts.length <= breaker.failures) continue;
        out.push(
          finding(
            'RETRY_LOOP',
            'error',
            `${plural(attempts.length, 'failed automatic compaction')} in one turn (${list(attempts.map((c) => c.id))})${between}, but the policy's circuit breaker trips after ${plural(breaker.failures, 'failure')}: it did not stop the loop.`,
            seqs,
          ),
        );
        continue;
      }
      if (repeated) {
        out.push(
          finding(
            'RETRY_LOOP',
            'error',
            `${plural(attempts.length, 'failed automatic compaction')} in one turn (${list(attempts.map((c) => c.id))})${between}; ${num(repeated[1])} failed the same way (${repeated[0]}). The same failing compaction restarted after each dispatch: after a failure, threshold-triggered attempts are deferred until the next user turn (and a fresh retry budget per tool dispatch is the bug).`,
            seqs,
          ),
        );
      } else {
        out.push(
          finding(
            'RETRY_LOOP',
            'warning',
            `${plural(attempts.length, 'failed automatic compaction')} in one turn (${list(attempts.map((c) => c.id))})${between}, each for a different reason (${keys.map((k) => k.text || 'reason not recorded').join('; ')}). After a failure, threshold-triggered attempts should wait for the next user turn, or a circuit breaker should stop them.`,
            seqs,
          ),
        );
      }
    }
    return out;
  },
};

export const HALF_WRITTEN_COMPACTION: Rule = {
  id: 'HALF_WRITTEN_COMPACTION',
  severities: ['error', 'warning'],
  title: 'A compaction record without its boundary (the view never changed), or a boundary without its record',
  origins: ['000', '004'],
  run(ctx) {
    const out: Diagnostic[] = [];
    for (const c of ctx.facts.compactions) {
      if (c.end?.outcome === 'committed' && c.checkpoints.length === 0) {
        out.push(
          finding(
            'HALF_WRITTEN_COMPACTION',
            'error',
            `Compaction ${c.id} is recorded as committed (seq ${c.end.seq}) but no checkpoint took the place of its source: the record and the view disagree. Only a matching record + boundary pair is a commit.`,
            [c.start?.seq ?? c.end.seq, c.end.seq],
          ),
        );
      }
      if (c.checkpoints.length > 0 && !c.start && !c.end) {
        out.push(
          finding(
            'HALF_WRITTEN_COMPACTION',
            'warning',
            `Checkpoint ${list(c.checkpoints.map((k) => k.id))} names compaction ${c.id}, which has no compaction/start or compaction/end in the log: a boundary without its record, so its trigger, policy and outcome are unknown.`,
            c.checkpoints.map((k) => k.seq),
          ),
        );
      }
      const parts = new Set(c.checkpoints.map((k) => (k.item.derivation?.kind === 'checkpoint' ? k.item.derivation.part : 'summary')));
      if (parts.has('continuation') !== parts.has('handoff')) {
        const has = parts.has('continuation') ? 'continuation' : 'handoff';
        out.push(
          finding(
            'HALF_WRITTEN_COMPACTION',
            'error',
            `Compaction ${c.id} installed only the ${has} half of its handoff pair: a continuation message needs its assistant handoff (and the reverse), or the next request starts from half a boundary.`,
            c.checkpoints.map((k) => k.seq),
          ),
        );
      }
    }
    return out;
  },
};

function markerCovers(ctx: RuleContext): Set<string> {
  const ids = new Set<string>();
  for (const rec of ctx.state.items) {
    const d = rec.item.derivation;
    if (d?.kind === 'marker') for (const id of d.of) ids.add(id);
  }
  return ids;
}

export const SILENT_FALLBACK: Rule = {
  id: 'SILENT_FALLBACK',
  severities: ['error', 'warning'],
  title: 'A lossy truncation or deterministic fallback with no visible marker',
  origins: ['002', '000'],
  run(ctx) {
    const out: Diagnostic[] = [];
    const reported = new Set<string>();
    for (const c of ctx.facts.compactions) {
      if (c.record.outcome !== 'fallback' || !c.end) continue;
      const fb = c.end.fallback;
      const seqs = [c.end.seq, ...c.viewSeqs.slice(0, 5)];
      if (!fb) {
        if (c.markers.length === 0 && c.viewSeqs.length > 0) {
          out.push(
            finding(
              'SILENT_FALLBACK',
              'warning',
              `Compaction ${c.id} fell back without recording which fallback or whether the view marks it, and no marker item stands in the view: a degraded session should say so where the model and the user can see it.`,
              seqs,
            ),
          );
        }
        continue;
      }
      if (fb.marker && c.markers.length === 0) {
        out.push(
          finding(
            'SILENT_FALLBACK',
            'error',
            `Compaction ${c.id} says its ${fb.kind} fallback carries a visible marker, but no marker item was placed in the view: the truncation is silent after all.`,
            seqs,
          ),
        );
      } else if (!fb.marker && c.markers.length === 0) {
        const lossy = fb.kind !== 'deterministic';
        reported.add(c.id);
        out.push(
          finding(
            'SILENT_FALLBACK',
            lossy ? 'error' : 'warning',
            lossy
              ? `Compaction ${c.id} fell back to lossy ${fb.kind === 'truncation' ? 'head/tail truncation' : 'fallback'} with no visible marker: history disappeared from the model's view without a word. A lossy fallback must be loud (a marker in the view, a UI indicator).`
              : `Compaction ${c.id} fell back to a deterministic handoff with no visible marker: the strategy is recorded in the log, but the model cannot tell its handoff was not written by the summarizer.`,
            seqs,
          ),
        );
      }
    }
    // Truncation drops with no marker standing for them.
    const marked = markerCovers(ctx);
    for (const e of ctx.facts.ofKinds('drop')) {
      if (e.reason !== 'truncation') continue;
      const owner = e.compactionId ?? ctx.facts.bracketAt(e.seq)?.id;
      if (owner !== undefined && reported.has(owner)) continue; // Said once, for its compaction.
      const unmarked = e.items.filter((id) => !marked.has(id));
      if (unmarked.length === 0) continue;
      out.push(
        finding(
          'SILENT_FALLBACK',
          'error',
          `The truncation at seq ${e.seq} dropped ${plural(unmarked.length, 'item')} (${list(unmarked)}) and no marker item stands for ${unmarked.length === 1 ? 'it' : 'them'}: lossy truncation must leave a visible marker in the view.`,
          [e.seq],
        ),
      );
    }
    return out;
  },
};
