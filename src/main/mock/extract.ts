import type { RequestDigest } from './script';

/*
 * What the extractive mock summary is made of: lines and names pulled out of a request's text by
 * fixed patterns, in a fixed order, so the same request always gives the same material. No model,
 * no guessing: every line is a line the request carried (shortened when long).
 *
 * A summary request built by src/shared/strategies renders the history as items headed
 * `[#<index> <role>]`; when such headings are present, only the history is mined and its first and
 * last user items are the objective and the next action. Otherwise the whole conversation is mined
 * and the request's own first and last user messages are used.
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
export type HandoffSection = (typeof HANDOFF_SECTIONS)[number];

export interface Extracted {
  readonly objective: string;
  readonly next: string;
  /** Lines per section, in section order. A line goes under one pattern section at most (it may also be the objective or next action). */
  readonly sections: ReadonlyMap<HandoffSection, readonly string[]>;
  /** Lines that ask something (end in "?"). */
  readonly questions: readonly string[];
}

const LINE_MAX = 200;
const ITEM_HEAD = /^\[#\d+ (\w+)\]$/;

/**
 * Tried in this order, each line filed under the first section that takes it: a line that fails is
 * blocked work before it is anything else. Constraints are stated early (the first ones are kept);
 * for the rest the most recent lines are the current state (the last ones are kept).
 */
const PATTERNS: readonly [HandoffSection, RegExp, 'first' | 'last'][] = [
  ['Constraints', /\b(must|never|always|do not|don't|should not|shouldn't|only|required|without)\b/i, 'first'],
  [
    'Blocked work',
    /\b(error|errors|failed|failing|failure|exception|traceback|cannot|can't|unable|blocked|timed out|timeout|panic|ENOENT|EACCES|EADDRINUSE)\b|^\s*[A-Z]\w*Error\b/i,
    'last',
  ],
  [
    'Invalidations',
    /\b(no longer|instead|reverted?|rolled back|superseded|obsolete|wrong|incorrect|invalid|not needed|discard(ed)?)\b/i,
    'last',
  ],
  [
    'Decisions and evidence',
    /\b(decided|decision|chose|choose|because|so that|going with|evidence|confirmed|measured)\b|\b\d+(\.\d+)?\s*(ms|s|tokens?|tests?|files?|lines?|%|MB|KB|bytes?)\b/i,
    'last',
  ],
  ['Completed work', /\b(done|fixed|added|created|implemented|passed|passes|passing|completed|updated|wrote|merged|removed)\b/i, 'last'],
  ['Active work', /\b(working on|in progress|currently|now|let me|I'll|I will|TODO|WIP)\b/i, 'last'],
];

const FILE =
  /(?:^|[\s"'`([{<=:])((?:\.{0,2}\/)?(?:[\w@.-]+\/)*[\w@-][\w.@-]*\.[A-Za-z][A-Za-z0-9]{0,7})(:\d+)?(?::\d+)?(?=$|[\s"'`)\]}>,;:])/g;
const ANCHOR =
  /\b[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+(?=\()|\b[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+\b|\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b|\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g;
/** Endings that make a dotted word an abbreviation (e.g., i.e.) or a domain, not a file name. */
const NOT_FILE_EXT = /^(e|g|i|com|org|net|io)$/i;

function short(line: string): string {
  const t = line.replace(/\s+/g, ' ').trim();
  return t.length > LINE_MAX ? `${t.slice(0, LINE_MAX - 1)}…` : t;
}

interface Item {
  readonly role: string;
  readonly text: string;
}

/** The `[#i role]` items of a rendered history, or null when the text has none. */
function items(text: string): Item[] | null {
  const out: { role: string; lines: string[] }[] = [];
  for (const line of text.split('\n')) {
    const head = ITEM_HEAD.exec(line.trim());
    if (head) out.push({ role: head[1] ?? '', lines: [] });
    else out.at(-1)?.lines.push(line);
  }
  return out.length === 0 ? null : out.map((i) => ({ role: i.role, text: i.lines.join('\n') }));
}

function firstLine(text: string): string {
  return short(text.split('\n').find((l) => l.trim() !== '') ?? '');
}

function unique<T>(xs: Iterable<T>, max: number): T[] {
  const out: T[] = [];
  for (const x of new Set(xs)) {
    if (out.length >= max) break;
    out.push(x);
  }
  return out;
}

/** File paths named in a text, and `path:line` references (code anchors), in order of first mention. */
function fileRefs(text: string, max: number): { paths: string[]; lines: string[] } {
  const paths: string[] = [];
  const lines: string[] = [];
  for (const m of text.matchAll(FILE)) {
    const path = m[1] ?? '';
    const ext = path.slice(path.lastIndexOf('.') + 1);
    if (NOT_FILE_EXT.test(ext) || /^\d/.test(ext) || /^\.+$/.test(path)) continue;
    paths.push(path);
    if (m[2]) lines.push(`${path}${m[2]}`);
  }
  return { paths: unique(paths, max), lines: unique(lines, max) };
}

function anchors(text: string, exclude: ReadonlySet<string>, max: number): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(ANCHOR)) if (!exclude.has(m[0])) found.push(m[0]);
  return unique(found, max);
}

/** Mines a request for the handoff sections; `perSection` bounds every list. */
export function extract(digest: RequestDigest, perSection: number): Extracted {
  const history = items(digest.text);
  const source = history ? history.map((i) => i.text).join('\n') : digest.text;
  const users = history?.filter((i) => i.role === 'user') ?? [];
  const objective = firstLine(users[0]?.text ?? digest.firstUser) || firstLine(source);
  const next = firstLine(users.at(-1)?.text ?? digest.lastUser);
  const lines = source
    .split('\n')
    .map(short)
    .filter((l) => l.length >= 3);
  // The objective and next action may also be filed under a section (a request that is a constraint too).
  const used = new Set<string>();
  const sections = new Map<HandoffSection, string[]>();
  sections.set('Objective', objective ? [objective] : []);
  for (const [section, re, end] of PATTERNS) {
    const hits = lines.filter((l) => !used.has(l) && re.test(l));
    const kept = unique(end === 'first' ? hits : hits.reverse(), perSection);
    if (end === 'last') kept.reverse();
    for (const l of kept) used.add(l);
    sections.set(section, kept);
  }
  sections.set('Next action', next ? [next] : []);
  const refs = fileRefs(source, perSection * 2);
  sections.set('Files', refs.paths);
  // path:line references first: they are the most precise anchors a history gives.
  sections.set('Code anchors', unique([...refs.lines, ...anchors(source, new Set(refs.paths), perSection * 2)], perSection * 2));
  const ordered = new Map<HandoffSection, string[]>(HANDOFF_SECTIONS.map((s) => [s, sections.get(s) ?? []]));
  const questions = unique(
    lines.filter((l) => l.endsWith('?')),
    perSection,
  );
  return { objective, next, sections: ordered, questions };
}

/**
 * The top-level keys of the JSON object a request asks for: the first `{…}` template that follows
 * the word JSON (within 300 characters) and names at least two keys, in the system prompt, else in
 * the instructions of the last user message. When that message carries a rendered history (the
 * preemptive compactor puts its template first, then `[#i role]` items), only the text before the
 * history counts, so a JSON object quoted in the history is never taken for the template.
 * null: the request asks for no JSON object.
 */
export function requestedJsonKeys(digest: RequestDigest): string[] | null {
  const lines = digest.lastUser.split('\n');
  const first = lines.findIndex((l) => ITEM_HEAD.test(l.trim()));
  const head = first < 0 ? digest.lastUser : lines.slice(0, first).join('\n');
  return templateKeys(digest.system) ?? templateKeys(head);
}

function templateKeys(text: string): string[] | null {
  for (let i = text.indexOf('{'); i >= 0; i = text.indexOf('{', i + 1)) {
    if (!/json/i.test(text.slice(Math.max(0, i - 300), i))) continue;
    const keys = topLevelKeys(text, i);
    if (keys.length >= 2) return keys;
  }
  return null;
}

/** Keys at depth 1 of the braces opening at `start`: `"k": …` or a bare list `{"a", "b"}`. */
function topLevelKeys(text: string, start: number): string[] {
  const keys: string[] = [];
  let depth = 0;
  let expectKey = true;
  const end = Math.min(text.length, start + 4000);
  for (let i = start; i < end; i++) {
    const c = text[i];
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) break;
    } else if (c === ':' && depth === 1) expectKey = false;
    else if (c === ',' && depth === 1) expectKey = true;
    else if (c === '"') {
      // Skip the whole string (braces inside it do not count); a key is a string in key position.
      let close = i + 1;
      while (close < end && text[close] !== '"') close += text[close] === '\\' ? 2 : 1;
      const s = text.slice(i + 1, close);
      if (depth === 1 && expectKey && /^[A-Za-z_][A-Za-z0-9_]*$/.test(s) && !keys.includes(s)) keys.push(s);
      i = close;
    }
  }
  return keys;
}
