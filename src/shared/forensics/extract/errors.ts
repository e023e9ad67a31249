import { trimEnd } from '../text';

/*
 * Error messages: codes (ENOENT, E0502, TS2345, SOME_THING_FAILED) and "…Error: message" lines up
 * to the line's end (at most 120 characters after the name).
 */

const CODE = /\b(?:E[A-Z]{3,}|E\d{3,5}|TS\d{4}|[A-Z][A-Z0-9_]{3,}_(?:ERROR|FAILED|EXCEEDED|REQUIRED|NOT_FOUND))\b/g;
const LINE = /\b[A-Z]?[A-Za-z]*(?:Error|Exception|error|panicked)\b:?[^\n]{0,120}/g;

export function errorsIn(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(CODE)) out.push(m[0]);
  for (const m of text.matchAll(LINE)) {
    const s = trimEnd(m[0]);
    // "error" alone, or "errors" in a sentence, is not a message: a message has a colon (or the closing parenthesis of "(SomeError)") and words after it.
    if (s.length < 12 || s.length > 200 || !/(?:error|exception|panicked)\S*[:)]\s*\S/i.test(s)) continue;
    out.push(s);
  }
  return out;
}
