import { renderItems } from '../common/render';
import type { SourceItem, SummaryRequest } from '../types';

/*
 * Every text the `layered` strategy sends. cosh: "Build a structured handoff containing the
 * objective, constraints, decisions and evidence, invalidations, completed/active/blocked work, next
 * action, files, and code anchors. Changed-file observations must be marked stale." The same ten
 * sections are asked of maps and reductions, so that reducing is merging like with like.
 */

export const HANDOFF_SECTIONS = [
  'Objective',
  'Constraints',
  'Decisions and evidence',
  'Invalidations',
  'Completed work',
  'Active work',
  'Blocked work',
  'Next action',
  'Files',
  'Code anchors',
] as const;

const SECTIONS_TEXT = HANDOFF_SECTIONS.map((s) => `## ${s}`).join('\n');

/** The marker the prompts ask the model to put on changed-file observations. */
export const STALE_MARK = 'STALE';

const RULES = `Rules:
- Write Markdown with exactly these ten level-2 headings, in this order, and nothing before the first one:
${SECTIONS_TEXT}
- Write "None." under a heading with nothing to report.
- Copy file paths, identifiers, commands, error messages, versions and numbers verbatim; never paraphrase them.
- Cite evidence by item number (#12) from the [#n role] labels.
- Changed-file observations are stale: when a file was read (or listed, or tested) and later written, edited, patched, moved or deleted, do not restate what the earlier read showed as current. List it under Invalidations as "${STALE_MARK}: <path> (observed at #i, changed at #j)" and mark the file as changed under Files.
- Keep every user constraint and every open (active or blocked) task. Do not invent facts.`;

const HANDOFF_SYSTEM = `You write the checkpoint handoff of a coding agent whose older history is being compacted. The agent continues from your handoff, followed by its most recent items, which are kept verbatim after it.
${RULES}`;

const MAP_SYSTEM = `You summarise one segment of a longer agent history. Other segments are summarised separately and the summaries are merged later, so report only what this segment shows, with its item numbers.
${RULES}`;

const REREAD_PROTOCOL = `If the summaries conflict or are too vague on a point that matters and the raw items would settle it, you may instead answer with exactly one line and nothing else:
REREAD: start-end,start-end
giving up to 3 inclusive ranges of item numbers (for example "REREAD: 12-15,40-40"). The raw items are then sent once, with this request; a second REREAD is not allowed.`;

const REDUCE_SYSTEM = `You merge partial summaries of consecutive parts of an agent history, given in order, into one summary of the whole range. Later parts override earlier ones: a later change of a file invalidates earlier observations of it; a later decision supersedes an earlier one (keep both, the earlier under Invalidations).
${RULES}
${REREAD_PROTOCOL}`;

const FINAL_SYSTEM = `${HANDOFF_SYSTEM}
You are given ordered partial summaries of the history instead of the history itself. Later parts override earlier ones.
${REREAD_PROTOCOL}`;

/** The validator's answer protocol: the first non-empty line is the verdict. */
export const AUDIT_SYSTEM = `You validate a checkpoint handoff (the CANDIDATE) against the map summaries it was built from (the EVIDENCE). The evidence is the reference for this check.
Check that the candidate:
- keeps every constraint, decision, invalidation, completed/active/blocked task and next action found in the evidence;
- presents no ${STALE_MARK} (changed-file) observation as current, and invents nothing the evidence does not support;
- has the ten headings: ${HANDOFF_SECTIONS.join(', ')}.
Answer protocol (strict):
- First line: exactly PASS or exactly FAIL, nothing else on that line.
- PASS: nothing more is needed.
- FAIL: then one problem per line, each line starting with "- ", naming the missing, contradicted or invented fact and the evidence part it comes from (for example "- missing constraint 'no network access' (map 2, #14)").`;

const CORRECTION_SYSTEM = `${HANDOFF_SYSTEM}
A validator found problems in the CANDIDATE handoff. Rewrite the whole handoff so that every listed problem is fixed, using the EVIDENCE; keep everything that was right. Answer with the corrected handoff only.`;

function range(from: number, to: number): string {
  return from === to ? `#${from}` : `#${from}–#${to}`;
}

export function oneShotRequest(items: readonly SourceItem[], from: number, to: number): SummaryRequest {
  return {
    stage: 'one-shot',
    label: `one-shot ${range(from, to)}`,
    system: HANDOFF_SYSTEM,
    messages: [{ role: 'user', text: `History items ${range(from, to)} to compact:\n\n${renderItems(items, from, to)}` }],
    maxOutput: null,
  };
}

/**
 * One map: a stable ordinal, an exact item range. `body` is the rendered items; the envelope alone
 * (empty body) is what the packer subtracts from the window as instruction overhead.
 */
export function mapEnvelope(
  seg: { ordinal: number; from: number; to: number },
  source: { from: number; to: number },
  body: string,
  maxOutput: number,
): SummaryRequest {
  return {
    stage: 'map',
    label: `map ${seg.ordinal} (${range(seg.from, seg.to)})`,
    system: MAP_SYSTEM,
    messages: [
      {
        role: 'user',
        text: `Segment ${seg.ordinal}: items ${range(seg.from, seg.to)} of the history ${range(source.from, source.to)}.\n\n${body}`,
      },
    ],
    maxOutput,
  };
}

export function mapRequest(
  items: readonly SourceItem[],
  seg: { ordinal: number; from: number; to: number },
  source: { from: number; to: number },
  maxOutput: number,
): SummaryRequest {
  return mapEnvelope(seg, source, renderItems(items, seg.from, seg.to), maxOutput);
}

/** A summary given to a reducer or an auditor, labelled with the exact items it covers. */
export interface LabelledSummary {
  readonly label: string;
  readonly from: number;
  readonly to: number;
  readonly text: string;
}

export function renderSummary(s: LabelledSummary): string {
  return `[${s.label}: items ${range(s.from, s.to)}]\n${s.text}`;
}

export function renderSummaries(list: readonly LabelledSummary[]): string {
  return list.map(renderSummary).join('\n\n');
}

export function reduceRequest(
  inputs: readonly LabelledSummary[],
  level: number,
  index: number,
  final: boolean,
  maxOutput: number | null,
): SummaryRequest {
  const from = inputs[0]?.from ?? 0;
  const to = inputs.at(-1)?.to ?? from;
  return {
    stage: final ? 'final-reduce' : 'reduce',
    label: final ? `final reduce L${level}` : `reduce L${level}#${index}`,
    system: final ? FINAL_SYSTEM : REDUCE_SYSTEM,
    messages: [
      { role: 'user', text: `${inputs.length} ordered partial summaries of items ${range(from, to)}:\n\n${renderSummaries(inputs)}` },
    ],
    maxOutput,
  };
}

/**
 * The same reduction, re-sent once with the raw items a REREAD asked for. The ranges are whole
 * items, so the header may say they are complete; a range is never cut (cosh: "partial excerpts
 * never claim complete range coverage").
 */
export function withRawItems(
  req: SummaryRequest,
  items: readonly SourceItem[],
  ranges: readonly (readonly [number, number])[],
): SummaryRequest {
  const parts = ranges.map(([a, b]) => `Complete raw items ${range(a, b)}:\n\n${renderItems(items, a, b)}`);
  const text = `${parts.join('\n\n')}\n\nThese are the raw items you asked for. This was your one reread: answer with the summary now; another REREAD is not allowed.`;
  return {
    ...req,
    label: `${req.label} + reread`,
    messages: [
      ...req.messages,
      { role: 'assistant', text: `REREAD: ${ranges.map(([a, b]) => `${a}-${b}`).join(',')}` },
      { role: 'user', text },
    ],
  };
}

export function auditRequest(
  candidate: string,
  evidence: readonly LabelledSummary[],
  round: number,
  part: number,
  parts: number,
  maxOutput: number,
): SummaryRequest {
  return {
    stage: 'audit',
    label: parts > 1 ? `audit ${round} part ${part + 1}/${parts}` : `audit ${round}`,
    system: AUDIT_SYSTEM,
    messages: [{ role: 'user', text: `EVIDENCE (map summaries):\n\n${renderSummaries(evidence)}\n\nCANDIDATE:\n\n${candidate}` }],
    maxOutput,
  };
}

export function correctionRequest(
  candidate: string,
  findings: readonly string[],
  evidence: readonly LabelledSummary[],
  round: number,
): SummaryRequest {
  const ev = evidence.length > 0 ? `EVIDENCE (map summaries):\n\n${renderSummaries(evidence)}\n\n` : '';
  return {
    stage: 'correction',
    label: `correction ${round}`,
    system: CORRECTION_SYSTEM,
    messages: [{ role: 'user', text: `${ev}CANDIDATE:\n\n${candidate}\n\nPROBLEMS:\n${findings.map((f) => `- ${f}`).join('\n')}` }],
    // cosh: "Final reductions and corrections preserve the selected connector's output configuration."
    maxOutput: null,
  };
}

export type Verdict = { readonly pass: true } | { readonly pass: false; readonly findings: readonly string[] };

/** Parses the validator's answer (AUDIT_SYSTEM's protocol). Anything but a leading PASS is not a pass. */
export function parseVerdict(text: string): Verdict {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0);
  const head = (lines[0] ?? '')
    .replace(/[*_`#:.]/g, '')
    .trim()
    .toUpperCase();
  if (head === 'PASS') return { pass: true };
  if (head === 'FAIL') {
    const listed = lines
      .slice(1)
      .filter((l) => l.startsWith('-'))
      .map((l) => l.replace(/^-\s*/, ''));
    return { pass: false, findings: listed.length > 0 ? listed : ['the validator answered FAIL without listing problems'] };
  }
  return { pass: false, findings: [`unparseable verdict (expected PASS or FAIL on the first line): ${(lines[0] ?? '').slice(0, 120)}`] };
}

/** Headings of HANDOFF_SECTIONS a summary lacks. */
export function missingSections(text: string): string[] {
  return HANDOFF_SECTIONS.filter((s) => !new RegExp(`^#{1,6}\\s*${s.replace(/ /g, '\\s+')}\\s*$`, 'im').test(text));
}
