/**
 * The user's own redaction patterns (`--redact-pattern REGEX`, the export dialog's own patterns).
 * A pattern is a JavaScript regular expression, checked before any text is read:
 *  - it must compile, and must not match the empty string (it would mark every position);
 *  - it must not repeat a group that itself repeats (`(a+)+`, `(\w*)*`, `(x|y+){2,}`): such nesting
 *    is what backtracks exponentially, and it is refused rather than run;
 *  - it is run on pieces of at most OWN_PIECE characters (a line, or a long line cut), so that any
 *    backtracking that remains is bounded by the piece, not by a 100 MB tool output. A match that
 *    would span a cut is not found; docs/export.md says so.
 */

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

/** The text cut into pieces of at most OWN_PIECE characters, at line ends where it can be. */
export function* pieces(text: string): Generator<string> {
  let at = 0;
  while (at < text.length) {
    let end = Math.min(text.length, at + OWN_PIECE);
    if (end < text.length) {
      const nl = text.lastIndexOf('\n', end - 1);
      if (nl >= at) end = nl + 1;
    }
    yield text.slice(at, end);
    at = end;
  }
}
