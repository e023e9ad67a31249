import { sentences } from '../text';

/*
 * A user's constraints: sentences of a prompt that bind what the agent may do — "never …",
 * "don't …", "do not …", "always …", "only …", "make sure …", "avoid …" at the head of the sentence
 * (after "please", "and", "also", …), or "you must / must not / should never / may not …". The head
 * position is what keeps "I don't know" and "it only fails on CI" out. Questions are not constraints,
 * and neither is text pasted in a fence or a quote.
 */

const LEAD = String.raw`(?:(?:please|pls|and|but|also|so|just|again|remember(?: to)?|note|important|nb|ok|okay|then|now|from now on|going forward)[,:!]?\s+)*`;
const HEAD = new RegExp(
  String.raw`^${LEAD}(?:never|don'?t|do not|always|only|make sure|ensure|avoid|stop|no more|under no circumstances)\b(?!\s+(?:know|think|see|understand|remember|get|care|mind|worry)\b)`,
  'i',
);
// At the head of a clause too: mid-sentence, "you are not allowed to …" is as often a pasted error
// message ("… when I try, You are not allowed to access 'Stages' records.") as a rule for the agent.
const MODAL = new RegExp(
  String.raw`^${LEAD}(?:you|we|the agent|claude|codex)\s+(?:must(?: not|n'?t)?|should(?: never| not|n'?t)|may not|are not allowed to|cannot|can'?t|need to|have to|will never)\s+(?!be\s+(?:able|sure|right|wrong)\b)\w`,
  'i',
);

function isConstraint(s: string): boolean {
  if (/\?\s*$/.test(s)) return false;
  // Words of a constraint, not a log line, a path list or a table row.
  if (/^[|{[<]/.test(s) || (s.match(/[a-z]{2,}/gi)?.length ?? 0) < 3) return false;
  return HEAD.test(s) || MODAL.test(s);
}

/** The constraints a user's prompt states, as its sentences (a clause after ";" or a dash counts as a head too). */
export function constraintsIn(text: string): string[] {
  return sentences(text, 10, 300).filter((s) => !/\?\s*$/.test(s) && s.split(/;\s+|\s+[—–-]\s+|,\s+(?:but|and)\s+/).some(isConstraint));
}
