/**
 * A value a line gave where a known name or number belongs, for a message: scalars as JSON,
 * objects and arrays by kind only. JSON.stringify would recurse into them, and a hostile line nests
 * them deep enough to overflow the stack.
 */
export const shown = (v: unknown): string =>
  Array.isArray(v) ? 'an array' : v !== null && typeof v === 'object' ? 'an object' : v === undefined ? 'nothing' : JSON.stringify(v);
