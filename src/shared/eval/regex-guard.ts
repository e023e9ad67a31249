/*
 * Regular expressions in facts files come from people, and JavaScript has no regex timeout. Two
 * guards keep a careless pattern from hanging an evaluation:
 * 1. `regexHazard` rejects, when the facts file is read, the two shapes behind catastrophic
 *    (exponential) backtracking: a repeated group that itself repeats — `(a+)+`, `(\w+\s?)*`,
 *    `(.*){2,50}` — and unbounded repetition of alternatives — `(a|aa)+`. It is a heuristic (only a
 *    linear-time engine such as RE2 is safe by construction), which is why (2) exists.
 * 2. `regexTest` never runs a pattern over more than MAX_REGEX_INPUT characters at once: long texts
 *    are scanned in overlapping windows, which bounds the polynomial blow-ups the first check lets by.
 * The cost of (2): a match longer than REGEX_OVERLAP characters that straddles a window boundary
 * can be missed. Fact patterns should be short anchors, so this is documented, not worked around.
 */

export const MAX_REGEX_INPUT = 4_096;
export const REGEX_OVERLAP = 256;
/** Flags a fact regex may use. g and y are stateful (lastIndex) and d is useless here. */
export const REGEX_FLAGS = /^(?!.*(.).*\1)[imsu]*$/;

interface Frame {
  /** Something inside this group repeats. */
  repeats: boolean;
  /** The group has alternatives (a|b): overlapping ones backtrack exponentially when the group repeats. */
  alternates: boolean;
  /** Where it opened, for the message. */
  at: number;
}

interface Quantifier {
  readonly len: number;
  /** It allows more than one repetition. */
  readonly repeats: boolean;
  /** Unbounded, or bounded so high (over 10) that it backtracks like unbounded. */
  readonly unbounded: boolean;
}

/** The quantifier at `i`, if there is one. */
function quantifierAt(p: string, i: number): Quantifier | null {
  const lazy = (len: number): number => (p[i + len] === '?' ? len + 1 : len);
  const c = p[i];
  if (c === '*' || c === '+') return { len: lazy(1), repeats: true, unbounded: true };
  if (c === '?') return { len: lazy(1), repeats: false, unbounded: false };
  if (c !== '{') return null;
  const m = /^\{(\d+)(,(\d*))?\}/.exec(p.slice(i));
  if (!m) return null;
  const max = m[2] === undefined ? Number(m[1]) : m[3] === '' ? Infinity : Number(m[3]);
  return { len: lazy(m[0].length), repeats: max > 1, unbounded: max > 10 };
}

/** Index just past the character class that opens at `i`. */
function skipClass(p: string, i: number): number {
  let j = i + 1;
  if (p[j] === '^') j++;
  if (p[j] === ']') j++;
  while (j < p.length && p[j] !== ']') j += p[j] === '\\' ? 2 : 1;
  return j + 1;
}

/** Why a pattern is refused, or null. Expects a pattern that compiles. */
export function regexHazard(pattern: string): string | null {
  const stack: Frame[] = [{ repeats: false, alternates: false, at: 0 }];
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i];
    if (c === '\\') {
      i += 2;
    } else if (c === '[') {
      i = skipClass(pattern, i);
    } else if (c === '(') {
      stack.push({ repeats: false, alternates: false, at: i });
      i++;
    } else if (c === '|') {
      (stack[stack.length - 1] as Frame).alternates = true;
      i++;
    } else if (c === ')') {
      const group = stack.length > 1 ? (stack.pop() as Frame) : null;
      const parent = stack[stack.length - 1] as Frame;
      i++;
      const q = quantifierAt(pattern, i);
      if (group && q?.unbounded && group.repeats) {
        return `the group at character ${group.at + 1} repeats and is itself repeated ("${pattern.slice(group.at, i + q.len)}"): such nested quantifiers can backtrack catastrophically; rewrite it without the outer repetition`;
      }
      if (group && q?.unbounded && group.alternates) {
        return `the alternatives of the group at character ${group.at + 1} are repeated without bound ("${pattern.slice(group.at, i + q.len)}"): overlapping alternatives backtrack catastrophically; match one alternative, or bound the repetition ({1,10})`;
      }
      if (q) i += q.len;
      if (group?.repeats || q?.repeats) parent.repeats = true;
    } else {
      const q = quantifierAt(pattern, i);
      if (q?.repeats) (stack[stack.length - 1] as Frame).repeats = true;
      i += q ? q.len : 1;
    }
  }
  return null;
}

/** The windows a long text is scanned in: at most `size` characters, overlapping by `overlap`. */
export function windows(text: string, size = MAX_REGEX_INPUT, overlap = REGEX_OVERLAP): string[] {
  if (text.length <= size) return [text];
  const out: string[] = [];
  const step = size - overlap;
  for (let start = 0; start < text.length; start += step) {
    out.push(text.slice(start, start + size));
    if (start + size >= text.length) break;
  }
  return out;
}

/** True when the (non-global) regex matches somewhere in the text, scanned window by window. */
export function regexTest(re: RegExp, text: string): boolean {
  for (const w of windows(text)) {
    re.lastIndex = 0;
    if (re.test(w)) return true;
  }
  return false;
}
