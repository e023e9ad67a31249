import { trimEnd } from '../text';

/*
 * Identifiers that are unmistakably code: snake_case, camelCase or PascalCase with an inner capital,
 * dotted names before a call, or a name followed by "(". Ordinary words are never identifiers.
 */

const IDENT =
  /\b(?:[A-Za-z_][A-Za-z0-9]*_[A-Za-z0-9_]+|[a-z]+[A-Z][A-Za-z0-9]*|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*|[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+(?=\())\b|\b[A-Za-z_$][\w$]*(?=\()/g;

const STOP = new Set(['e.g', 'i.e']);

/** The identifiers of a text; names that are part of a path (`paths`) are the path's. */
export function identifiersIn(text: string, paths: readonly string[] = []): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(IDENT)) {
    const s = trimEnd(m[0]);
    if (s.length < 3 || s.length > 200 || STOP.has(s)) continue;
    if (paths.some((p) => p === s)) continue;
    out.push(s);
  }
  return out;
}
