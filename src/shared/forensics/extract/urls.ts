import { trimEnd } from '../text';

/* URLs with a scheme (http, https, ws, git, file, …); the trailing punctuation of a sentence is not theirs. */

const URL = /\b(?:https?|wss?|git|ssh|file|ftp):\/\/[^\s<>"'`)\]}]+/gi;

export function urlsIn(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(URL)) {
    const s = trimEnd(m[0]);
    if (s.length >= 10 && s.length <= 500) out.push(s);
  }
  return out;
}
