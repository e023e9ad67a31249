/*
 * A tool call's arguments as string fields by key: most providers log them as a JSON string. Not
 * JSON: no fields (the extractors then read nothing from the call rather than guess).
 */

/** Every string value of a tool call's JSON arguments (nested ones too), with its key; arrays of strings joined by spaces. */
export function inputFields(input: string): { key: string; value: string }[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(input);
  } catch {
    return [];
  }
  const out: { key: string; value: string }[] = [];
  const walk = (v: unknown, key: string, depth: number): void => {
    if (depth > 4) return;
    if (typeof v === 'string') out.push({ key, value: v });
    else if (Array.isArray(v)) {
      if (v.length > 0 && v.every((x) => typeof x === 'string')) out.push({ key, value: v.join(' ') });
      else for (const x of v) walk(x, key, depth + 1);
    } else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k, depth + 1);
  };
  walk(parsed, '', 0);
  return out;
}
