import { inputFields } from './json-input';
import { trimEnd } from '../text';

/*
 * File paths: at least two segments joined by slashes, or a bare file name with an extension that
 * names source, config or data. URLs, fractions and dates (1/2, 2026/01/02) are not paths.
 */

const PATH =
  /(?:~|\.{1,2})?(?:\/[\w.@+-]+){2,}\/?|\b[\w.@+-]+(?:\/[\w.@+-]+)+|\b[\w-]+\.(?:ts|tsx|js|jsx|mjs|cjs|json|jsonl|md|py|rs|go|java|c|h|cpp|hpp|toml|yaml|yml|sh|txt|lock|css|html|sql)\b/g;

function isPath(s: string): boolean {
  if (s.length < 3 || s.length > 200) return false;
  if (/^\d+(\/\d+)+$/.test(s)) return false;
  // The tail of a URL the URL extractor keeps whole.
  if (/^[\w-]+\.(?:com|org|net|io|dev)\//.test(s)) return false;
  // "and/or", "read/write": two short words are prose, not a path.
  if (/^[a-z]+\/[a-z]+$/i.test(s) && !/\./.test(s)) return false;
  return true;
}

/** The paths written in a text. */
export function pathsIn(text: string): string[] {
  const out: string[] = [];
  const noUrls = text.replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, ' ');
  for (const m of noUrls.matchAll(PATH)) {
    const s = trimEnd(m[0]);
    if (isPath(s)) out.push(s);
  }
  return out;
}

/** The paths a tool call names in its path-like arguments (file_path, path, cwd, …), not in the file content it writes. */
export function pathsOfCall(input: string): string[] {
  const out: string[] = [];
  for (const f of inputFields(input)) {
    if (!/path|file|dir|cwd|workdir/i.test(f.key) || f.value.includes('\n')) continue;
    const v = trimEnd(f.value);
    if (v.length >= 3 && v.length <= 200 && /[/.]/.test(v)) out.push(v);
  }
  return out;
}
