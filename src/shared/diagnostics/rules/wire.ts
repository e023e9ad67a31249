import type { Diagnostic } from '../../model/diagnostic';
import type { JoinedRequest, WireJoin } from '../../model/wire-join';
import { finding, list, num, plural } from '../text';
import type { Rule, RuleContext } from '../types';

/*
 * Rules over a session joined with a capture of its wire traffic. They stay silent without one.
 * Each cites the log events around the attempts (a wire-only request has no seq of its own) and
 * names the capture line of the first attempt it is about, so a finding opens where the evidence is.
 */

/** An attempt that brought back no response (an HTTP error, a transport error, no status). */
const failed = (r: JoinedRequest): boolean => (r.status !== null && r.status >= 400) || r.status === null || r.error !== null;
/** An attempt that brought back no whole summary: failed, or cut at the output limit. */
const noSummary = (r: JoinedRequest): boolean => failed(r) || r.finish?.reason === 'length';

function describeFailure(r: JoinedRequest): string {
  const what =
    r.status === null
      ? 'no response'
      : r.status < 400 && r.finish?.reason === 'length'
        ? `cut at the output limit (${r.finish.raw})`
        : `HTTP ${r.status}`;
  const msg = r.error?.message ? `: ${r.error.message.length > 120 ? `${r.error.message.slice(0, 120)}…` : r.error.message}` : '';
  return `${what}${msg}`;
}

const duration = (ms: number): string => (ms < 1000 ? `${num(ms)} ms` : `${(ms / 1000).toFixed(1)} s`);

function at(wire: WireJoin, rs: readonly JoinedRequest[]): { file: string | null; line: number | null } {
  const first = rs.find((r) => r.capture !== null);
  if (!first || first.capture === null) return { file: null, line: null };
  return { file: wire.captures[first.capture]?.file ?? null, line: first.line };
}

function cite(rs: readonly JoinedRequest[]): number[] {
  return rs.map((r) => r.logSeq ?? r.afterSeq).filter((s): s is number => s !== null);
}

function located(d: Diagnostic, wire: WireJoin, rs: readonly JoinedRequest[]): Diagnostic {
  const where = at(wire, rs);
  return where.file === null ? d : { ...d, file: where.file, line: where.line };
}

/** Every run of attempts: each compaction's (with its log record) and the orphan runs. */
function runs(ctx: RuleContext): { id: string | null; attempts: JoinedRequest[]; outcome: string | null }[] {
  const wire = ctx.wire;
  if (!wire) return [];
  const get = (i: number): JoinedRequest | undefined => wire.requests[i];
  const out: { id: string | null; attempts: JoinedRequest[]; outcome: string | null }[] = [];
  for (const c of wire.compactions) {
    const rec = ctx.state.compactions.find((x) => x.id === c.id);
    out.push({ id: c.id, attempts: c.attempts.map(get).filter((r): r is JoinedRequest => r !== undefined), outcome: rec?.outcome ?? null });
  }
  for (const o of wire.orphanAttempts)
    out.push({ id: null, attempts: o.map(get).filter((r): r is JoinedRequest => r !== undefined), outcome: null });
  return out.filter((r) => r.attempts.length > 0);
}

const name = (id: string | null): string => (id === null ? 'A compaction the log does not show' : `Compaction ${id}`);

export const COMPACTION_ATTEMPTS_FAILED: Rule = {
  id: 'COMPACTION_ATTEMPTS_FAILED',
  severities: ['error'],
  title: 'Every summarizer attempt of a compaction failed on the wire',
  origins: ['wire'],
  run(ctx) {
    const out: Diagnostic[] = [];
    for (const r of runs(ctx)) {
      if (!r.attempts.every(noSummary) || r.outcome === 'committed') continue;
      const reasons = [...new Set(r.attempts.map(describeFailure))];
      out.push(
        located(
          finding(
            'COMPACTION_ATTEMPTS_FAILED',
            'error',
            `${name(r.id)} failed: ${r.attempts.length === 1 ? 'its one summarizer attempt on the wire failed' : `all ${plural(r.attempts.length, 'summarizer attempt')} on the wire failed`} (${reasons.join('; ')}). ${r.id === null ? 'The log records neither the compaction nor its failure.' : 'The log records no summary.'}`,
            cite(r.attempts),
          ),
          ctx.wire as WireJoin,
          r.attempts,
        ),
      );
    }
    return out;
  },
};

/** Attempts at which a run of failures is a loop, not a retry. */
export const RETRY_LOOP_ATTEMPTS = 3;

export const WIRE_RETRY_LOOP: Rule = {
  id: 'WIRE_RETRY_LOOP',
  severities: ['warning'],
  title: 'A compaction retried many times on the wire',
  origins: ['wire'],
  run(ctx) {
    const out: Diagnostic[] = [];
    for (const r of runs(ctx)) {
      const fails = r.attempts.filter(failed);
      if (fails.length < RETRY_LOOP_ATTEMPTS) continue;
      const ms = r.attempts.reduce((n, a) => n + (a.durationMs ?? 0), 0);
      const span =
        r.attempts[0]?.at !== null && r.attempts.at(-1)?.at !== null ? (r.attempts.at(-1)?.at ?? 0) - (r.attempts[0]?.at ?? 0) : null;
      out.push(
        located(
          finding(
            'WIRE_RETRY_LOOP',
            'warning',
            `${name(r.id)} was attempted ${num(r.attempts.length)} times on the wire, ${num(fails.length)} failed (${[...new Set(fails.map(describeFailure))].join('; ')})${span !== null ? ` over ${duration(span)}` : ''}${ms > 0 ? `, ${duration(ms)} of it waiting for answers` : ''}.`,
            cite(r.attempts),
          ),
          ctx.wire as WireJoin,
          r.attempts,
        ),
      );
    }
    return out;
  },
};

export const SUMMARY_FROM_CUT_RESPONSE: Rule = {
  id: 'SUMMARY_FROM_CUT_RESPONSE',
  severities: ['error'],
  title: 'A committed summary came from a summarizer response cut at its output limit',
  origins: ['wire'],
  run(ctx) {
    const out: Diagnostic[] = [];
    for (const r of runs(ctx)) {
      if (r.outcome !== 'committed') continue;
      const cut = r.attempts.filter((a) => a.finish?.reason === 'length');
      if (cut.length === 0) continue;
      const ok = r.attempts.filter((a) => !failed(a) && a.finish?.reason !== 'length');
      const raw = cut.map((a) => a.finish?.raw ?? 'length');
      out.push(
        located(
          finding(
            'SUMMARY_FROM_CUT_RESPONSE',
            'error',
            `${name(r.id)} is committed, but ${plural(cut.length, 'summarizer response')} on the wire stopped at the output limit (${list([...new Set(raw)])})${ok.length > 0 ? `; the other ${plural(ok.length, 'answer')} continued a cut one` : ''}: the summary the model sees is cut, or made of a continuation alone.`,
            cite(r.attempts),
          ),
          ctx.wire as WireJoin,
          cut,
        ),
      );
    }
    return out;
  },
};

export const FALLBACK_LOGGED_AS_SUCCESS: Rule = {
  id: 'FALLBACK_LOGGED_AS_SUCCESS',
  severities: ['error'],
  title: 'The log calls a compaction committed, but no summarizer attempt succeeded on the wire',
  origins: ['wire'],
  run(ctx) {
    const out: Diagnostic[] = [];
    for (const r of runs(ctx)) {
      if (r.outcome !== 'committed' || r.id === null || !r.attempts.every(failed)) continue;
      out.push(
        located(
          finding(
            'FALLBACK_LOGGED_AS_SUCCESS',
            'error',
            `Compaction ${r.id} is committed in the log, but all ${plural(r.attempts.length, 'summarizer attempt')} failed on the wire (${[...new Set(r.attempts.map(describeFailure))].join('; ')}): what took the history's place did not come from a summarizer.`,
            cite(r.attempts),
          ),
          ctx.wire as WireJoin,
          r.attempts,
        ),
      );
    }
    return out;
  },
};

export const WIRE_LOG_DISAGREE: Rule = {
  id: 'WIRE_LOG_DISAGREE',
  severities: ['warning'],
  title: 'The log and the wire disagree about what a request sent',
  origins: ['wire'],
  run(ctx) {
    const wire = ctx.wire;
    if (!wire) return [];
    return wire.requests
      .filter((r) => r.verdict === 'mismatch')
      .map((r) =>
        located(
          finding(
            'WIRE_LOG_DISAGREE',
            'warning',
            `Request ${r.index} (logged as #${r.logIndex ?? '?'}) was sent otherwise than the log says: ${r.firstDiff ?? 'the bodies differ'}. The view shows what the wire carried; the difference is the harness's.`,
            cite([r]),
          ),
          wire,
          [r],
        ),
      );
  },
};
