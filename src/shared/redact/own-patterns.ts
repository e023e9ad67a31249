/**
 * The user's own redaction patterns (`--redact-pattern REGEX`, the export dialog's own patterns).
 * A pattern is a JavaScript regular expression, checked before any text is read:
 *  - it must compile, and must not match the empty string (it would mark every position);
 *  - it must not repeat a group that itself repeats (`(a+)+`, `(\w*)*`, `(x|y+){2,}`): such nesting
 *    is what backtracks exponentially, and it is refused rather than run;
 *  - it is run on windows of 2 × OWN_PIECE characters (replaceInWindows), so that any backtracking
 *    that remains is bounded by the window, not by a 100 MB tool output; the windows overlap, so a
 *    match of up to OWN_PIECE characters is found wherever it lies (docs/export.md says so).
 */

/** The longest match of an own pattern found wherever it lies; a window is twice as long. */
export const OWN_PIECE = 4096;

export interface OwnPattern {
  readonly name: string;
  readonly source: string;
  readonly regex: RegExp;
}

export class PatternError extends Error {}

/** True when the regex source repeats a group that holds an unbounded repetition. */
function nestedRepeat(source: string): boolean {
  // One frame per open group: whether it holds a repetition.
  const stack: boolean[] = [];
  let inClass = false;
  let last = false; // the group just closed held a repetition
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      i++;
      last = false;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') {
      inClass = true;
      last = false;
      continue;
    }
    if (c === '(') {
      stack.push(false);
      last = false;
      continue;
    }
    if (c === ')') {
      last = stack.pop() ?? false;
      if (last && stack.length > 0) stack[stack.length - 1] = true;
      continue;
    }
    const repeat = c === '*' || c === '+' || (c === '{' && /^\{\d*,\d*\}|^\{\d+\}/.test(source.slice(i)));
    if (repeat) {
      if (last) return true;
      if (stack.length > 0) stack[stack.length - 1] = true;
    }
    last = false;
  }
  return false;
}

/** Compiles the user's patterns, named own-1, own-2, … in order; a bad one throws PatternError naming it. */
export function ownPatterns(sources: readonly string[]): OwnPattern[] {
  return sources.map((source, i) => {
    const name = `own-${i + 1}`;
    let regex: RegExp;
    try {
      regex = new RegExp(source, 'g');
    } catch (err: unknown) {
      throw new PatternError(
        `redaction pattern ${i + 1} /${source}/ is not a valid regular expression: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    if (source.length === 0 || new RegExp(`^(?:${source})$`).test(''))
      throw new PatternError(`redaction pattern ${i + 1} /${source}/ matches the empty string`);
    if (nestedRepeat(source))
      throw new PatternError(
        `redaction pattern ${i + 1} /${source}/ repeats a group that itself repeats, which can take exponential time: write it without the nesting`,
      );
    return { name, source, regex };
  });
}

/**
 * `text` with every match of the global `regex` replaced by `replace(match)`, as `text.replace`
 * would, the regex being run on windows of 2 × OWN_PIECE characters. A window keeps the matches
 * that start in its first half; the next window starts where the last match kept ends, else at the
 * half. So the windows overlap by at least OWN_PIECE: a match of up to OWN_PIECE characters starts
 * in the first half of some window and ends inside it, and is found whole wherever it lies — across
 * what used to be a cut. A longer match is replaced up to where its window ends. A lookbehind sees
 * no further back than its window's start.
 */
export function replaceInWindows(text: string, regex: RegExp, replace: (match: string) => string): string {
  const size = 2 * OWN_PIECE;
  if (text.length <= size) return text.replace(regex, replace);
  let out = '';
  let at = 0;
  for (;;) {
    const end = Math.min(text.length, at + size);
    const window = text.slice(at, end);
    const last = end === text.length;
    // In the last window every match counts: nothing follows to find it again.
    const half = last ? window.length : OWN_PIECE;
    let done = 0;
    for (const m of window.matchAll(regex)) {
      if (m.index >= half) break;
      out += window.slice(done, m.index) + replace(m[0]);
      done = m.index + m[0].length;
    }
    if (last) return out + window.slice(done);
    const next = Math.max(done, half);
    out += window.slice(done, next);
    at += next;
  }
}
