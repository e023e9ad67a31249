/*
 * Numbers worth keeping: versions, decimals, integers of three or more digits (smaller counts are
 * noise), each with its unit when one follows. `numberValue` reads one back as a value and a unit,
 * so that `12,000`, `12000` and `12k` are the same number.
 */

const UNIT = '(?:\\s?(?:ms|s|sec|seconds?|min|minutes?|h|hours?|KB|MB|GB|TB|KiB|MiB|GiB|k|K|M|%|tokens?|lines?|bytes?|files?|USD|\\$))?';
const NUMBER = new RegExp(
  `\\bv?\\d+\\.\\d+(?:\\.\\d+)+(?:[-+][\\w.]+)?\\b|\\$?\\b\\d{1,3}(?:[,_]\\d{3})+(?:\\.\\d+)?${UNIT}|\\$?\\b\\d{3,}(?:\\.\\d+)?${UNIT}|\\b\\d+(?:\\.\\d+)?\\s?(?:k|K|M|ms|MB|GB|KB|%)(?![\\w])`,
  'g',
);

export function numbersIn(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(NUMBER)) {
    const s = m[0].trim();
    if (s.length >= 2 && s.length <= 60) out.push(s);
  }
  return out;
}

const SCALE: Record<string, number> = { k: 1e3, K: 1e3, M: 1e6 };

/** A number as value and unit (null for versions, which only match as written). */
export function numberValue(s: string): { value: number; unit: string } | null {
  const t = s.replace(/^\$/, '').trim();
  if (/^v?\d+\.\d+\.\d+/.test(t)) return null;
  const m = /^(\d[\d,_]*(?:\.\d+)?)\s?([A-Za-z%$]*)$/.exec(t);
  if (!m) return null;
  const raw = Number((m[1] as string).replace(/[,_]/g, ''));
  if (!Number.isFinite(raw)) return null;
  let unit = (m[2] as string).toLowerCase();
  const scale = SCALE[m[2] as string];
  if (scale !== undefined) unit = '';
  if (unit.length > 3) unit = unit.replace(/s$/, '');
  unit = unit
    .replace(/^(?:sec|second)$/, 's')
    .replace(/^(?:minute)$/, 'min')
    .replace(/^(?:hour)$/, 'h');
  return { value: raw * (scale ?? 1), unit };
}
