import { MAX_REREAD_RANGES } from './options';

/*
 * cosh: "REREAD: start-end,... can request up to three raw ranges ... Malformed, unavailable, or
 * oversized rereads fail explicitly". Ranges are inclusive source item indices, the numbers of the
 * [#n role] labels the summaries cite.
 */

/** The argument of a REREAD line in a reducer's answer, or null when it asks for none. */
export function findReread(text: string): string | null {
  const m = /^[ \t]*REREAD:(.*)$/m.exec(text);
  return m ? (m[1] ?? '').trim() : null;
}

export type RereadParse =
  | { readonly ok: true; readonly ranges: readonly (readonly [number, number])[] }
  | { readonly ok: false; readonly ranges: readonly (readonly [number, number])[]; readonly reason: string };

/** Parses "12-15,40-40" against the items a reread may fetch (the covered prefix, inclusive). */
export function parseReread(arg: string, available: { readonly from: number; readonly to: number }): RereadParse {
  const parts = arg.split(',').map((p) => p.trim());
  const ranges: [number, number][] = [];
  for (const part of parts) {
    const m = /^#?(\d+)\s*-\s*#?(\d+)$/.exec(part);
    if (!m) return { ok: false, ranges, reason: `malformed REREAD range "${part}" (expected start-end)` };
    const a = Number(m[1]);
    const b = Number(m[2]);
    if (a > b) return { ok: false, ranges, reason: `malformed REREAD range "${part}" (start after end)` };
    ranges.push([a, b]);
  }
  if (ranges.length > MAX_REREAD_RANGES)
    return { ok: false, ranges, reason: `REREAD asked for ${ranges.length} ranges; at most ${MAX_REREAD_RANGES} are allowed` };
  const bad = ranges.find(([a, b]) => a < available.from || b > available.to);
  if (bad)
    return {
      ok: false,
      ranges,
      reason: `REREAD range ${bad[0]}-${bad[1]} is unavailable (the compacted items are #${available.from}–#${available.to})`,
    };
  return { ok: true, ranges };
}
