import type { Block } from '../../model/content';
import type { Diagnostic } from '../../model/diagnostic';
import type { Finish, Usage } from '../../model/event';
import { reportedContextTokens } from '../../model/event';
import type { CompactionFacts } from '../facts';
import { anyElided, charsOf, finding, isEmptyContent, list, measureText, num, plural, textOf } from '../text';
import type { Measure } from '../measure';
import type { Rule, RuleContext } from '../types';

/**
 * What a commit was built from, and whether it was whole: completion integrity (cosh), empty or
 * malformed summaries (Rind, the Conversation Compaction article), summaries not smaller than their
 * source (DeepSeek Harness), summaries that keep growing.
 */

/** A compaction that installed a summary (not a fallback): checkpoints and a summary or final reduction. */
function modelCommit(c: CompactionFacts): boolean {
  if (c.checkpoints.length === 0 || c.record.outcome === 'fallback') return false;
  return c.committedSummary !== null || finalReduction(c) !== null;
}

function finalReduction(c: CompactionFacts) {
  let last = null;
  for (const r of c.reduces) if (r.final && (c.commitSeq === null || r.seq < c.commitSeq)) last = r;
  return last;
}

interface FinishEvidence {
  readonly finish: Finish | null;
  /** The event that says it (or the summary that lacks it). */
  readonly seq: number;
  /** A response event for the summarizer call exists (so a missing finish is a missing signal, per the format). */
  readonly responseSeen: boolean;
  readonly what: string;
  readonly maxOutput: number | null;
}

function finishOf(ctx: RuleContext, c: CompactionFacts): FinishEvidence | null {
  const final = finalReduction(c);
  if (final)
    return {
      finish: final.finish ?? null,
      seq: final.seq,
      responseSeen: final.finish !== undefined,
      what: `its final reduction (seq ${final.seq})`,
      maxOutput: null,
    };
  const s = c.committedSummary;
  if (!s) return null;
  const byId = new Map(c.requests.map((r) => [r.id, r]));
  let req = s.request !== undefined ? byId.get(s.request) : undefined;
  if (!req) {
    for (const r of c.requests) if (r.seq < s.seq && r.responseSeq !== null) req = r;
  }
  const maxOutput = s.route?.maxOutput ?? req?.route.maxOutput ?? null;
  if (s.finish) return { finish: s.finish, seq: s.seq, responseSeen: true, what: `its summary (seq ${s.seq})`, maxOutput };
  if (req && req.responseSeq !== null) {
    return {
      finish: req.finish,
      seq: req.responseSeq,
      responseSeen: true,
      what: `the summarizer's response (seq ${req.responseSeq})`,
      maxOutput,
    };
  }
  return { finish: null, seq: s.seq, responseSeen: false, what: `its summary (seq ${s.seq})`, maxOutput };
}

/** Whether the log records finish reasons of summarizer calls anywhere (so their absence means something). */
function logRecordsSummarizerFinish(ctx: RuleContext): boolean {
  for (const e of ctx.facts.ofKinds('compaction/summary', 'compaction/summary-error', 'mapreduce/map', 'mapreduce/reduce')) {
    if (e.finish) return true;
  }
  return ctx.state.requests.some((r) => r.purpose !== 'agent' && r.finish !== null);
}

function whyNotNatural(f: Finish, maxOutput: number | null): string {
  switch (f.reason) {
    case 'length':
      return `the summarizer stopped at its output ceiling${maxOutput !== null ? ` (${num(maxOutput)} tokens)` : ''}, so the text is cut off`;
    case 'refusal':
      return 'the summarizer refused';
    case 'pause':
      return 'the provider paused the turn before the summary was complete';
    case 'tool_calls':
      return 'the summarizer asked for a tool instead of finishing its text';
    case 'error':
      return 'the call ended with an error';
    case 'cancelled':
      return 'the call was cancelled';
    case 'unknown':
      return 'the termination signal is not a natural completion';
    case 'stop':
      return '';
  }
}

export const INCOMPLETE_SUMMARY_ACCEPTED: Rule = {
  id: 'INCOMPLETE_SUMMARY_ACCEPTED',
  severities: ['error'],
  title: 'A checkpoint was committed from a response whose finish reason was not a natural stop',
  origins: ['001', '000'],
  run(ctx) {
    const out: Diagnostic[] = [];
    let recordsFinish: boolean | null = null;
    for (const c of ctx.facts.compactions) {
      // Map summaries are checkpoint evidence too: an accepted map must have completed naturally.
      for (const m of c.maps) {
        if (m.status !== 'accepted' || !m.finish || m.finish.reason === 'stop') continue;
        out.push(
          finding(
            'INCOMPLETE_SUMMARY_ACCEPTED',
            'error',
            `Compaction ${c.id} accepted map ${m.ordinal} although its finish reason was "${m.finish.raw}" (${m.finish.reason}): ${whyNotNatural(m.finish, null)}. Only a natural stop may become checkpoint evidence.`,
            [m.seq],
          ),
        );
      }
      if (!modelCommit(c)) continue;
      const ev = finishOf(ctx, c);
      if (!ev) continue;
      const commit = c.commitSeq ?? ev.seq;
      if (ev.finish) {
        if (ev.finish.reason === 'stop') continue;
        out.push(
          finding(
            'INCOMPLETE_SUMMARY_ACCEPTED',
            'error',
            `Compaction ${c.id} committed a checkpoint although ${ev.what} finished with "${ev.finish.raw}" (${ev.finish.reason}): ${whyNotNatural(ev.finish, ev.maxOutput)}. A summary that did not stop naturally must be rejected, not installed.`,
            [ev.seq, commit],
          ),
        );
        continue;
      }
      recordsFinish ??= logRecordsSummarizerFinish(ctx);
      const meaningful = (ctx.format === 'palimpsest' && ev.responseSeen) || recordsFinish;
      if (!meaningful) continue; // This harness never logs summarizer finish reasons: nothing to judge.
      out.push(
        finding(
          'INCOMPLETE_SUMMARY_ACCEPTED',
          'error',
          `Compaction ${c.id} committed a checkpoint although ${ev.what} carries no finish reason: the provider sent no termination signal, so the summary may be incomplete. A missing termination signal must reject the response.`,
          [ev.seq, commit],
        ),
      );
    }
    return out;
  },
};

const JSON_KEYS = ['session_intent', 'files_touched', 'decisions', 'pending_questions', 'next_steps'] as const;

function stripFence(t: string): string {
  const s = t.trim();
  const m = /^```[a-zA-Z]*\n([\s\S]*?)\n?```$/.exec(s);
  return (m?.[1] ?? s).trim();
}

/** What is wrong with a summary's structure, if anything (the Conversation Compaction article's JSON fields, cosh's repeated sections). */
function structureProblems(text: string, coveredItems: number): { severity: 'error' | 'warning'; message: string }[] {
  const problems: { severity: 'error' | 'warning'; message: string }[] = [];
  const body = stripFence(text);
  if (body.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      problems.push({ severity: 'error', message: 'is not valid JSON (cut off, or malformed): the required fields cannot be read' });
      return problems;
    }
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      const obj = parsed as Record<string, unknown>;
      const present = JSON_KEYS.filter((k) => k in obj);
      if (present.length >= 2 && present.length < JSON_KEYS.length) {
        problems.push({
          severity: 'error',
          message: `misses the required field${JSON_KEYS.length - present.length === 1 ? '' : 's'} ${list(JSON_KEYS.filter((k) => !(k in obj)))}`,
        });
      } else if (present.length === JSON_KEYS.length) {
        const empty = (v: unknown) => v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);
        if (empty(obj.decisions) && empty(obj.files_touched) && coveredItems > 20) {
          problems.push({
            severity: 'warning',
            message: `has no decisions and no files touched after ${plural(coveredItems, 'item')} of history: load-bearing fields are empty, which is almost always a silent failure`,
          });
        }
      }
    }
    return problems;
  }
  const headings = new Map<string, number>();
  for (const m of body.matchAll(/^(#{1,6})[ \t]+(.+?)[ \t#]*$/gm)) {
    const h = `${m[1]} ${(m[2] ?? '').trim()}`;
    headings.set(h, (headings.get(h) ?? 0) + 1);
  }
  const repeated = [...headings].filter(([, n]) => n > 1);
  if (repeated.length > 0) {
    const [h, n] = repeated[0] as [string, number];
    problems.push({
      severity: 'error',
      message: `repeats the section "${h}" ${num(n)} times: several partial responses were concatenated into one summary`,
    });
  }
  return problems;
}

export const EMPTY_SUMMARY: Rule = {
  id: 'EMPTY_SUMMARY',
  severities: ['error', 'warning'],
  title: 'An empty summary, or one missing required sections or fields, was committed',
  origins: ['000', '001', '002'],
  run(ctx) {
    const out: Diagnostic[] = [];
    for (const c of ctx.facts.compactions) {
      if (c.checkpoints.length === 0) continue;
      const commit = c.commitSeq ?? c.checkpoints[0]?.seq ?? 0;
      const emptyItems = c.checkpoints.filter((k) => isEmptyContent(ctx.facts.blocksOf(k)));
      if (emptyItems.length > 0) {
        out.push(
          finding(
            'EMPTY_SUMMARY',
            'error',
            `Compaction ${c.id} committed ${emptyItems.length === 1 ? 'an empty checkpoint' : `${emptyItems.length} empty checkpoint items`} (${list(emptyItems.map((k) => k.id))}): the history it replaced is gone from the view and nothing stands for it. An empty summary is not a handoff.`,
            [commit, ...emptyItems.map((k) => k.seq)],
          ),
        );
        continue;
      }
      const s = c.committedSummary;
      let blocks: readonly Block[];
      let where: string;
      if (s && c.record.outcome !== 'fallback') {
        blocks = ctx.facts.summaryBlocks(s);
        where = `the summary (seq ${s.seq})`;
        if (isEmptyContent(blocks)) {
          out.push(
            finding(
              'EMPTY_SUMMARY',
              'error',
              `Compaction ${c.id} committed a checkpoint from an empty summary (seq ${s.seq}): an empty summary is not a handoff and must be rejected.`,
              [s.seq, commit],
            ),
          );
          continue;
        }
      } else {
        const k =
          c.checkpoints.find((x) => x.item.derivation?.kind === 'checkpoint' && x.item.derivation.part !== 'continuation') ??
          c.checkpoints[0];
        if (!k) continue;
        blocks = ctx.facts.blocksOf(k);
        where = `checkpoint ${k.id}`;
      }
      if (anyElided(blocks)) continue; // Only a preview is in memory: the structure cannot be judged.
      for (const p of structureProblems(textOf(blocks), c.shadowed.length)) {
        out.push(
          finding('EMPTY_SUMMARY', p.severity, `Compaction ${c.id} committed ${where}, which ${p.message}.`, [s?.seq ?? commit, commit]),
        );
      }
    }
    return out;
  },
};

/** The summarizer call's usage for the committed summary: on the summary, else on its request's response. */
function summaryUsage(c: CompactionFacts): Usage | null {
  const s = c.committedSummary;
  if (!s) return null;
  if (s.usage) return s.usage;
  const req = s.request !== undefined ? c.requests.find((r) => r.id === s.request) : undefined;
  return req?.usage ?? null;
}

/** Output tokens the summarizer reported for the committed summary. */
function summaryOutputTokens(c: CompactionFacts): number | null {
  return summaryUsage(c)?.output ?? null;
}

interface SizeVerdict {
  readonly summary: Measure;
  readonly source: Measure;
  /** What `source` measures, in words. */
  readonly sourceIs: string;
}

/**
 * Summary against source, in the best unit the log allows: the harness's price of the source
 * against the reported output; else the summarizer's reported input (an upper bound of the
 * source, so only "not smaller" is conclusive); else characters. null: nothing to compare, or the
 * reported numbers show no failure.
 */
function installedSize(ctx: RuleContext, c: CompactionFacts): SizeVerdict | null {
  const s = c.committedSummary;
  const model = s !== null && c.record.outcome !== 'fallback';
  const usage = model ? summaryUsage(c) : null;
  const out = usage?.output ?? null;
  if (model && s.sourceTokens !== undefined && out !== null) {
    return {
      summary: { value: out, unit: 'tokens', source: 'reported' },
      source: { value: s.sourceTokens, unit: 'tokens', source: 'harness' },
      sourceIs: 'its source',
    };
  }
  const input = reportedContextTokens(usage ?? undefined);
  if (model && out !== null && input !== null) {
    if (out < input) return null;
    return {
      summary: { value: out, unit: 'tokens', source: 'reported' },
      source: { value: input, unit: 'tokens', source: 'reported' },
      sourceIs: 'the whole input of its summarizer call (the source is part of it)',
    };
  }
  let summaryBlocks: readonly Block[];
  if (model) summaryBlocks = ctx.facts.summaryBlocks(s);
  else summaryBlocks = c.checkpoints.flatMap((k) => ctx.facts.blocksOf(k));
  // An encrypted summary's size is ciphertext, not text: it cannot be compared in characters.
  if (summaryBlocks.some((b) => b.type === 'opaque')) return null;
  let sourceItems = c.shadowed;
  if (sourceItems.length === 0) sourceItems = c.source.map((id) => ctx.state.itemById.get(id)).filter((x) => x !== undefined);
  const source = sourceItems.reduce((n, rec) => n + charsOf(ctx.facts.blocksOf(rec)), 0);
  if (source === 0) return null;
  return {
    summary: { value: charsOf(summaryBlocks), unit: 'characters', source: 'counted' },
    source: { value: source, unit: 'characters', source: 'counted' },
    sourceIs: `the ${plural(sourceItems.length, 'item')} it replaced`,
  };
}

export const SUMMARY_NOT_SMALLER: Rule = {
  id: 'SUMMARY_NOT_SMALLER',
  severities: ['error', 'warning'],
  title: 'The summary is not smaller than the source it replaced',
  origins: ['004', '001'],
  run(ctx) {
    const out: Diagnostic[] = [];
    for (const c of ctx.facts.compactions) {
      if (c.checkpoints.length === 0) continue;
      const m = installedSize(ctx, c);
      if (!m || m.summary.value < m.source.value) continue;
      const fallback = c.record.outcome === 'fallback';
      const commit = c.commitSeq ?? 0;
      const seqs = [c.committedSummary?.seq ?? commit, commit, ...c.shadowed.slice(0, 10).map((x) => x.seq)];
      out.push(
        finding(
          'SUMMARY_NOT_SMALLER',
          fallback ? 'warning' : 'error',
          fallback
            ? `Compaction ${c.id} fell back to a deterministic handoff of ${measureText(m.summary)}, not smaller than ${m.sourceIs} (${measureText(m.source)}): the fallback did not reduce the history it stands for.`
            : `Compaction ${c.id} committed a summary of ${measureText(m.summary)}, not smaller than ${m.sourceIs} (${measureText(m.source)}): a summary that does not shrink its source must be rejected (it cannot relieve the pressure that triggered it).`,
          seqs,
        ),
      );
    }
    return out;
  },
};

export const SUMMARY_GROWTH: Rule = {
  id: 'SUMMARY_GROWTH',
  severities: ['warning'],
  title: 'Successive summaries in one session keep growing',
  origins: ['001', 'users'],
  run(ctx) {
    const commits = ctx.facts.compactions.filter((c) => modelCommit(c) && c.committedSummary !== null);
    if (commits.length < 3) return [];
    const tokens = commits.map(summaryOutputTokens);
    const useTokens = tokens.every((t) => t !== null);
    const sizes = commits.map((c, i) =>
      useTokens ? (tokens[i] as number) : charsOf(ctx.facts.summaryBlocks(c.committedSummary as NonNullable<typeof c.committedSummary>)),
    );
    const unit = useTokens ? 'output tokens (reported by the provider)' : 'characters';
    const out: Diagnostic[] = [];
    let runStart = 0;
    const flush = (end: number) => {
      // [runStart, end] strictly increasing, at least three summaries.
      if (end - runStart + 1 < 3) return;
      const run = commits.slice(runStart, end + 1);
      const first = sizes[runStart] as number;
      const last = sizes[end] as number;
      out.push(
        finding(
          'SUMMARY_GROWTH',
          'warning',
          `${run.length} successive summaries keep growing: ${sizes
            .slice(runStart, end + 1)
            .map(num)
            .join(
              ' → ',
            )} ${unit} (compactions ${list(run.map((c) => c.id))}). Each checkpoint re-summarises the previous one and adds to it${first > 0 ? ` (×${(last / first).toFixed(1)})` : ''}; at this rate the checkpoint itself will fill the budget.`,
          run.map((c) => c.committedSummary?.seq ?? c.commitSeq ?? 0),
        ),
      );
    };
    for (let i = 1; i < sizes.length; i++) {
      if ((sizes[i] as number) <= (sizes[i - 1] as number)) {
        flush(i - 1);
        runStart = i;
      }
    }
    flush(sizes.length - 1);
    return out;
  },
};
