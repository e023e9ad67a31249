/*
 * Which sections a structured handoff has. cosh names them (objective, constraints, decisions and
 * evidence, invalidations, completed/active/blocked work, next action, files, code anchors); the
 * Conversation Compaction article's JSON summary has required keys. A section counts as present
 * when a Markdown heading or a
 * "Name:" line (or, for JSON, a key) names it and something follows before the next section.
 */

export const HANDOFF_SECTIONS = [
  'Objective',
  'Constraints',
  'Decisions and evidence',
  'Invalidations',
  'Completed work',
  'Active work',
  'Blocked work',
  'Next action',
  'Files',
  'Code anchors',
] as const;

export interface SectionPresence {
  readonly name: string;
  readonly present: boolean;
  /** Present but with nothing under it. */
  readonly empty: boolean;
}

const norm = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();

function headingName(line: string): string | null {
  const h =
    /^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$/.exec(line) ?? /^\s*\*\*(.+?)\*\*:?\s*$/.exec(line) ?? /^\s*([A-Z][A-Za-z &/-]{2,40}):\s*$/.exec(line);
  return h?.[1] ? norm(h[1]) : null;
}

export function sectionsPresent(text: string, names: readonly string[] = HANDOFF_SECTIONS): SectionPresence[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    try {
      const obj: unknown = JSON.parse(trimmed);
      if (obj && typeof obj === 'object' && !Array.isArray(obj)) {
        const rec = obj as Record<string, unknown>;
        return names.map((name) => {
          const v = rec[name];
          const present = name in rec;
          const empty = v === '' || v === null || (Array.isArray(v) && v.length === 0);
          return { name, present, empty: present && empty };
        });
      }
    } catch {
      // Not JSON after all: fall through to headings.
    }
  }
  const lines = text.split('\n');
  const found = new Map<string, boolean>(); // section → has content
  let current: string | null = null;
  for (const line of lines) {
    const h = headingName(line);
    if (h !== null) {
      current = h;
      if (!found.has(h)) found.set(h, false);
      continue;
    }
    if (current !== null && line.trim() !== '') found.set(current, true);
  }
  return names.map((name) => {
    const key = norm(name);
    const hit = [...found.keys()].find((k) => k === key || k.startsWith(`${key} `) || (key.includes(' ') && k.includes(key)));
    return { name, present: hit !== undefined, empty: hit !== undefined && found.get(hit) === false };
  });
}
