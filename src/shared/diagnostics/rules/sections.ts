import type { Diagnostic } from '../../model/diagnostic';
import { anyElided, finding, num, plural, textOf } from '../text';
import type { Rule } from '../types';
import { harnessOf, quote } from './inferred';

/**
 * A committed Claude Code summary without the structure Claude Code's own compaction prompt asks
 * for. The prompt (2.1.332) asks for "an <analysis> block followed by a <summary> block" whose
 * summary has nine numbered sections ("1. Primary Request and Intent:" … "9. Optional Next
 * Step:"); the client drops the analysis and writes the summary block as "Summary:" and its
 * numbered sections inside its continuation message. A summary with neither is not what the
 * summarizer was asked for: an answer cut at its output limit, or one the client took from a
 * continuation, passes through as it is (a two-character "OK" in the compact-max-tokens run).
 * Only the structure is judged, not the length: a short conversation gets a short summary.
 */

/** What Claude Code writes around the summary in its continuation message (2.1.332). */
const PREAMBLE = /^This session is being continued from a previous conversation[^\n]*\n*/;
const REMINDER = /<system-reminder>[\s\S]*?<\/system-reminder>\s*/g;
const TAIL = /\n*If you need specific details from before compaction[\s\S]*$/;

/** The summary the model wrote, as Claude Code placed it in its continuation message. */
export function claudeSummaryBody(text: string): string {
  return text.replace(PREAMBLE, '').replace(REMINDER, '').replace(TAIL, '').trim();
}

/** The structure the prompt asks for: the summary block's "Summary:" heading, or numbered sections. */
const HEADING = /(?:^|\n)\s*(?:Summary:|<summary>)/;
const SECTION = /(?:^|\n)\s*\d+\.\s+\S/g;

export const SUMMARY_SECTIONS_MISSING: Rule = {
  id: 'SUMMARY_SECTIONS_MISSING',
  severities: ['warning'],
  title: 'A committed Claude Code summary lacks the summary block and numbered sections its prompt asks for (inferred)',
  origins: ['format'],
  run(ctx) {
    if (harnessOf(ctx) !== 'claude-code') return [];
    const out: Diagnostic[] = [];
    for (const c of ctx.facts.compactions) {
      for (const k of c.checkpoints) {
        const blocks = ctx.facts.blocksOf(k);
        // A long summary seen only as a preview is never judged on the preview.
        if (anyElided(blocks)) continue;
        const body = claudeSummaryBody(textOf(blocks));
        const sections = body.match(SECTION)?.length ?? 0;
        if (HEADING.test(body) || sections > 0) continue;
        out.push(
          finding(
            'SUMMARY_SECTIONS_MISSING',
            'warning',
            `Compaction ${c.id} committed the summary at seq ${k.seq}, ${plural(body.length, 'character')} long ("${quote(body, 80)}"), with neither the summary block nor any of the ${num(9)} numbered sections Claude Code's compaction prompt asks for. The log suggests the summarizer's answer was cut short (at its output limit) or was not a summary at all, and the client committed it anyway — inferred from the summary's text.`,
            [k.seq, ...(c.start ? [c.start.seq] : [])],
          ),
        );
      }
    }
    return out;
  },
};
