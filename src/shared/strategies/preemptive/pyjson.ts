/*
 * Python's json.dumps, for the bytes the Conversation Compaction article's reference code writes:
 * the summary block uses json.dumps(summary, indent=2) and the merge input json.dumps(half).
 * Python's defaults differ from JSON.stringify (", " and ": " separators without indent;
 * ensure_ascii escapes every non-ASCII character as \uXXXX), and those bytes are what gets counted
 * in the compacted view.
 */

const asciiOnly = (s: string): string => s.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

export function pyDumps(value: unknown, indent: number | null = null, level = 0): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : value > 0 ? 'Infinity' : value < 0 ? '-Infinity' : 'NaN';
  if (typeof value === 'string') return asciiOnly(JSON.stringify(value));
  const entries: string[] = Array.isArray(value)
    ? value.map((v) => pyDumps(v, indent, level + 1))
    : Object.entries(value as Record<string, unknown>).map(([k, v]) => `${asciiOnly(JSON.stringify(k))}: ${pyDumps(v, indent, level + 1)}`);
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  if (entries.length === 0) return open + close;
  if (indent === null) return open + entries.join(', ') + close;
  const pad = ' '.repeat(indent * (level + 1));
  return `${open}\n${pad}${entries.join(`,\n${pad}`)}\n${' '.repeat(indent * level)}${close}`;
}
