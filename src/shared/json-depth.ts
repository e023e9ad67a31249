/**
 * How deeply a JSON value nests, found without recursion. JSON.parse reads any depth, but
 * JSON.stringify, zod and every recursive walk overflow the stack somewhere past a few thousand
 * levels: values from outside (API input, session content) are measured with these first, and
 * a value deeper than a bound is refused or kept as text.
 */

/** Deepest nesting of API input: far more than any method's input has, far less than a stack holds. */
export const MAX_INPUT_DEPTH = 100;

/** Deepest nesting of a value inside a session (a tool call's input) that is parsed and shown as structure. */
export const MAX_CONTENT_DEPTH = 1000;

/** Whether `value` has arrays or objects nested more than `limit` deep (a scalar is depth 0, `[]` depth 1). */
export function depthExceeds(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [v, depth] = next;
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v as object)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

/**
 * Whether the JSON text `text` nests arrays or objects more than `limit` deep, read from the text
 * (brackets outside strings) without parsing it. Text that is not JSON is measured all the same.
 */
export function textDepthExceeds(text: string, limit: number): boolean {
  // Shallow text cannot be deep: each level takes at least one character.
  if (text.length <= limit) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}
