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
      if (c === 0x5c)
        i++; // a backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

type Frame = { readonly keys: readonly string[] | null; readonly v: Record<string, unknown> | unknown[]; i: number };

/**
 * JSON.stringify(value) for data as JSON.parse makes it (no toJSON, no cycles), written without
 * recursion: the text of a value too deep for JSON.stringify, kept where its structure cannot be.
 * Members whose value is undefined are left out, as JSON.stringify does.
 */
export function jsonText(value: unknown): string {
  const out: string[] = [];
  const stack: Frame[] = [];
  const open = (v: unknown): void => {
    if (v === null || typeof v !== 'object') {
      out.push(JSON.stringify(v) ?? 'null');
    } else if (Array.isArray(v)) {
      out.push('[');
      stack.push({ keys: null, v, i: 0 });
    } else {
      out.push('{');
      const obj = v as Record<string, unknown>;
      stack.push({ keys: Object.keys(obj).filter((k) => obj[k] !== undefined), v: obj, i: 0 });
    }
  };
  open(value);
  for (let top = stack.at(-1); top !== undefined; top = stack.at(-1)) {
    const length = top.keys ? top.keys.length : (top.v as unknown[]).length;
    if (top.i >= length) {
      out.push(top.keys ? '}' : ']');
      stack.pop();
      continue;
    }
    if (top.i > 0) out.push(',');
    if (top.keys) {
      const k = top.keys[top.i++] as string;
      out.push(JSON.stringify(k), ':');
      open((top.v as Record<string, unknown>)[k]);
    } else {
      open((top.v as unknown[])[top.i++]);
    }
  }
  return out.join('');
}

/**
 * JSON.stringify(value), or for a value too deep for it (it throws RangeError on the stack it
 * needs) the same text written without recursion. For importers turning a logged object into the
 * text a tool call holds.
 */
export function jsonTextOf(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch (err: unknown) {
    if (err instanceof RangeError) return jsonText(value);
    throw err;
  }
}
