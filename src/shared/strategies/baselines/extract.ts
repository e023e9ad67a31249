import type { Block } from '../../model/content';
import type { SourceItem, TokenCounter } from '../types';

/*
 * Line selection for the extractive baseline: keep the lines a handoff must not lose (cosh's
 * handoff: constraints, decisions and evidence, files, code anchors; the Conversation Compaction
 * article's prompt: "Never paraphrase file paths, error codes, function names, or version
 * numbers"). Deterministic: fixed patterns, a fixed priority, source order in the output.
 */

/** Priority classes, most important first. */
export type LineKind = 'constraint' | 'error' | 'path' | 'identifier';
const PRIORITY: Readonly<Record<LineKind, number>> = { constraint: 0, error: 1, path: 2, identifier: 3 };

/** Longest piece kept from one line; longer lines are split into sentences, then clipped. */
export const MAX_LINE_CHARS = 240;

const CONSTRAINT = /\b(must|never|always|do not|don't|should|shouldn't|only|required?|avoid|ensure|make sure|without)\b/i;
const ERROR_WORD = /\b(error|exception|failed|failure|fatal|traceback|panic|denied|not found|invalid|cannot|refused)\b/i;
const ERROR_CODE = /\b(E[A-Z]{3,}|[A-Z][A-Za-z]*(Error|Exception)|[A-Z]{1,4}\d{3,})\b/;
const PATH =
  /(^|[\s'"`(=:])(\.{0,2}\/)?[\w.-]+\/[\w./-]+|\b[\w-]+\.(ts|tsx|js|jsx|mjs|py|rs|go|java|kt|c|h|cpp|json|jsonl|md|toml|ya?ml|txt|sh|css|html|sql|lock)\b/;
const IDENTIFIER = /`[^`]+`|\b[a-z]+[A-Z]\w*\b|\b[a-z]+_[a-z0-9_]+\b|\b[A-Za-z_]\w*\(|\b\d+(\.\d+)+\b|\b\d{2,}\b/;

export interface Line {
  /** Source item index. */
  readonly index: number;
  readonly role: SourceItem['role'];
  readonly text: string;
  readonly kind: LineKind;
}

export function classify(text: string, fromUser: boolean): LineKind | null {
  if (fromUser && CONSTRAINT.test(text)) return 'constraint';
  if (ERROR_WORD.test(text) || ERROR_CODE.test(text)) return 'error';
  if (PATH.test(text)) return 'path';
  if (IDENTIFIER.test(text)) return 'identifier';
  return null;
}

/** The readable texts of a block: leaf text, tool-result bodies, and a tool call as "name input". */
function texts(b: Block): string[] {
  switch (b.type) {
    case 'text':
      return [b.text];
    case 'tool_call':
      return [`${b.name} ${b.input}`];
    case 'tool_result':
      return b.content.flatMap((c) => (c.type === 'text' ? [c.text] : []));
    default:
      return [];
  }
}

function pieces(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    const parts = line.length > MAX_LINE_CHARS ? line.split(/(?<=[.!?;])\s+/) : [line];
    for (const p of parts) out.push(p.length > MAX_LINE_CHARS ? `${p.slice(0, MAX_LINE_CHARS - 1)}…` : p);
  }
  return out;
}

/** Every classified, distinct line of items [from, to), in source order. */
export function extractLines(items: readonly SourceItem[], from: number, to: number): Line[] {
  const seen = new Set<string>();
  const out: Line[] = [];
  for (let i = from; i < to; i++) {
    const it = items[i] as SourceItem;
    // Only what the user typed can be a user constraint; a tool result sent in a user turn is not.
    for (const b of it.blocks) {
      const fromUser = it.role === 'user' && b.type === 'text';
      for (const text of texts(b).flatMap(pieces)) {
        const kind = classify(text, fromUser);
        if (kind === null || seen.has(text)) continue;
        seen.add(text);
        out.push({ index: i, role: it.role, text, kind });
      }
    }
  }
  return out;
}

export const lineText = (l: Line): string => `- [#${l.index} ${l.role}] ${l.text}`;

/** Lines that fit `budget` tokens, best classes first (earlier first within a class), returned in source order. */
export function selectLines(lines: readonly Line[], budget: number, count: TokenCounter): Line[] {
  const order = lines.map((l, k) => ({ l, k })).sort((a, b) => PRIORITY[a.l.kind] - PRIORITY[b.l.kind] || a.k - b.k);
  const chosen = new Set<number>();
  let used = 0;
  for (const { l, k } of order) {
    const t = count(`${lineText(l)}\n`);
    if (used + t > budget) continue;
    used += t;
    chosen.add(k);
  }
  return lines.filter((_, k) => chosen.has(k));
}
