/*
 * Text helpers the extractors share: the prose of a text without its code fences and quotes, and
 * its sentences. Pasted code and quoted output are not what the speaker said.
 */

/** The lines of a text outside ``` fences and not quoted with ">". */
export function proseLines(text: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced || /^\s*>/.test(line)) continue;
    out.push(line);
  }
  return out;
}

/** Sentences of the prose, list bullets and headings' marks removed; too short or too long ones are not statements. */
export function sentences(text: string, min = 12, max = 400): string[] {
  const out: string[] = [];
  for (const line of proseLines(text)) {
    for (const s of line.split(/(?<=[.!?])\s+(?=[A-Z`*"'(])/)) {
      const t = s
        .replace(/^\s*(?:[-*+]|\d+[.)]|#{1,6})\s+/, '')
        .replace(/^\*\*([^*]+)\*\*:?\s*/, '$1: ')
        .trim();
      if (t.length >= min && t.length <= max) out.push(t);
    }
  }
  return out;
}

/** Characters that end an anchor but are not part of it (punctuation after a path or a number). */
export function trimEnd(s: string): string {
  return s.trim().replace(/[.,;:)\]}'"`]+$/, '');
}
