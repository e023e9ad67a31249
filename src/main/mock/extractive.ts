import type { Answerer } from './decide';
import { type Extracted, HANDOFF_SECTIONS, type HandoffSection, extract, requestedJsonKeys } from './extract';
import { type Matcher, type Reply, type RequestDigest, matches } from './script';

/*
 * A ready answerer for re-runs without a model: every request gets a deterministic summary built
 * only from lines the request carried (./extract.ts), labelled so nobody mistakes it for a model's
 * work. It is a Markdown handoff with fixed sections, or — when the request asks for a JSON object
 * with named keys (the preemptive compactor's {"session_intent", "files_touched", "decisions",
 * "pending_questions", "next_steps"}) — a JSON object with exactly those keys.
 *
 * Sized to the request's output ceiling (max_tokens and its kin), counted at `charsPerToken`
 * characters a token (the mock has no tokenizer): lines are dropped from the longest section first
 * down to one per section; if even that does not fit, the text is cut at the ceiling and the reply
 * finishes with `length`, as a real model would.
 */

export const MOCK_SUMMARY_LABEL = '[MOCK SUMMARY — not a model]';

export interface ExtractiveOptions {
  /** Answer only the requests this matches; the others fall through to the script. */
  readonly when?: Matcher;
  /** Lines kept per section before sizing (default 6). */
  readonly maxLinesPerSection?: number;
  /** Characters counted as one token when sizing to the output ceiling (default 4). */
  readonly charsPerToken?: number;
}

const NONE = '(none found in the request)';

function markdown(sections: ReadonlyMap<HandoffSection, readonly string[]>): string {
  const parts = [MOCK_SUMMARY_LABEL, ''];
  for (const s of HANDOFF_SECTIONS) {
    const lines = sections.get(s) ?? [];
    parts.push(`## ${s}`, ...(lines.length > 0 ? lines.map((l) => `- ${l}`) : [`- ${NONE}`]), '');
  }
  return parts.join('\n').trimEnd();
}

/** Drops the last line of the longest list (the later one on ties) that has more than `floor` lines; false when none has. */
function dropOne(lists: Map<string, string[]>, floor: number): boolean {
  let pick: string | null = null;
  let longest = floor;
  for (const [k, v] of lists) {
    if (v.length >= longest && v.length > floor) {
      pick = k;
      longest = v.length;
    }
  }
  if (pick === null) return false;
  lists.get(pick)?.pop();
  return true;
}

/** Renders, dropping lines until the text fits `budget` characters (null: no ceiling). */
function fit<K extends string>(
  lists: Map<K, string[]>,
  render: (l: Map<K, string[]>) => string,
  budget: number | null,
  floor: number,
): { text: string; fits: boolean } {
  let text = render(lists);
  while (budget !== null && text.length > budget) {
    if (!dropOne(lists as Map<string, string[]>, floor)) return { text, fits: false };
    text = render(lists);
  }
  return { text, fits: true };
}

/** The value a JSON key gets, chosen by what its name says it holds. */
function valueFor(key: string, x: Extracted): string | string[] {
  const k = key.toLowerCase();
  const sec = (s: HandoffSection): string[] => [...(x.sections.get(s) ?? [])];
  if (/intent|objective|goal|task|purpose|summary/.test(k)) return x.objective;
  if (/file/.test(k)) return sec('Files');
  if (/decision/.test(k)) return sec('Decisions and evidence');
  if (/question|unresolved|unknown/.test(k)) return [...x.questions];
  if (/next|step|todo|action|plan/.test(k)) return [...new Set([x.next, ...sec('Active work')])].filter((l) => l !== '');
  if (/error|block/.test(k)) return sec('Blocked work');
  if (/constraint|rule|requirement/.test(k)) return sec('Constraints');
  if (/done|complete/.test(k)) return sec('Completed work');
  if (/invalid/.test(k)) return sec('Invalidations');
  if (/anchor|symbol|identifier/.test(k)) return sec('Code anchors');
  return [];
}

function jsonText(keys: readonly string[], x: Extracted, budget: number | null): { text: string; fits: boolean } {
  const scalars = new Map<string, string>();
  const lists = new Map<string, string[]>();
  for (const k of keys) {
    const v = valueFor(k, x);
    if (typeof v === 'string') scalars.set(k, v);
    else lists.set(k, v);
  }
  // The label goes inside the first value, so the object keeps exactly the keys asked for.
  const first = keys[0] ?? '';
  const render = (l: Map<string, string[]>): string => {
    const obj: Record<string, string | string[]> = {};
    for (const k of keys) {
      const v = scalars.get(k) ?? l.get(k) ?? [];
      obj[k] = k !== first ? v : typeof v === 'string' ? `${MOCK_SUMMARY_LABEL} ${v}`.trim() : [MOCK_SUMMARY_LABEL, ...v];
    }
    return JSON.stringify(obj, null, 2);
  };
  return fit(lists, render, budget, 0);
}

/** The summary reply for one request (pure: the same digest always gives the same reply). */
export function extractiveSummary(digest: RequestDigest, opts: Omit<ExtractiveOptions, 'when'> = {}): Reply {
  const perSection = Math.max(1, opts.maxLinesPerSection ?? 6);
  const charsPerToken = Math.max(1, opts.charsPerToken ?? 4);
  const budget = digest.maxOutput === null ? null : digest.maxOutput * charsPerToken;
  const x = extract(digest, perSection);
  const keys = requestedJsonKeys(digest);
  const sized = keys ? jsonText(keys, x, budget) : fit(new Map([...x.sections].map(([k, v]) => [k, [...v]])), markdown, budget, 1);
  const text = sized.fits || budget === null ? sized.text : sized.text.slice(0, budget);
  return {
    content: [{ type: 'text', text }],
    stop: sized.fits ? 'end' : 'length',
    usage: { output: Math.max(1, Math.ceil(text.length / charsPerToken)) },
  };
}

/**
 * An answerer that gives every request (or every request `when` matches) its extractive summary:
 * what tests script the mock with.
 * @internal
 */
export function extractiveAnswerer(opts: ExtractiveOptions = {}): Answerer {
  return (digest) => (matches(opts.when, digest) ? extractiveSummary(digest, opts) : null);
}
