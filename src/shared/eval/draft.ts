import { textAnchors } from '../compare/verbatim';
import type { RunTarget } from '../rerun/record';
import { blockText } from '../strategies/common/render';
import type { SourceItem } from '../strategies/types';
import type { Fact, FactCategory, FactsFile } from './facts';

/*
 * Drafts candidate facts from a trace for a person to confirm. Every draft has `confirmed: false`
 * (never scored until someone checks it) and cites the source item it came from. The matchers are
 * starting points: a drafted sentence is matched verbatim, which a faithful summary will rarely
 * reproduce — the person confirming a draft should cut it down to the words that must survive, or
 * write a regex. What is drafted:
 * - anchors (paths, identifiers, error strings; compare/verbatim.ts) as evidence, most-repeated first;
 * - user constraints: sentences of user messages (not tool results) with must, never, don't, always,
 *   only, do not, should not, make sure, avoid;
 * - decisions: "we will", "decided", "let's use", "going with"… in user or assistant text;
 * - open work: TODO / FIXME, "next", "still need", unchecked "- [ ]" items, and the pending items of
 *   the last todo list a tool call wrote (a todo tool's {todos: [{content, status}]} input).
 */

export interface DraftOptions {
  /** Scope the drafts to one compaction or request (recorded as each draft's target). */
  readonly target?: RunTarget;
  /** At most this many drafts of each kind (each anchor kind, constraints, decisions, open work). Default 25. */
  readonly maxPerKind?: number;
  /** The trace path to record in the file. */
  readonly trace?: string;
}

const CONSTRAINT = /\b(must|never|don'?t|do not|always|only|should not|shouldn'?t|make sure|avoid)\b/i;
const DECISION =
  /\b(we will|we'll|we are going to|decided|decision|let'?s use|let us use|let'?s go with|going with|we chose|opted for|I'll use|I will use)\b/i;
const OPEN_WORK = /\bTODO\b|\bFIXME\b|^\[ \]|\bnext\b|\bstill need|\bremaining\b/i;
const UNCHECKED = /^\[ \]\s*/;
// The anchor categories drafted as evidence, by the word a draft names each with.
const ANCHOR_KINDS = [
  ['paths', 'path'],
  ['identifiers', 'identifier'],
  ['errors', 'error'],
] as const;
type AnchorKind = (typeof ANCHOR_KINDS)[number][1];

function clip(s: string, max = 120): string {
  if (s.length <= max) return s;
  const cut = s.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return space > max / 2 ? cut.slice(0, space) : cut;
}

/** Lines, then sentences, without list bullets; too short or too long ones are not facts. */
function sentences(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    for (const s of line.split(/(?<=[.!?])\s+(?=[A-Z`*"'])/)) {
      // List bullets go; an unchecked box "[ ]" stays, it marks open work.
      const t = s.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, '').trim();
      if (t.length >= 12 && t.length <= 400) out.push(t);
    }
  }
  return out;
}

/** The prose of an item: its text blocks only (tool calls and results are not someone speaking). */
function prose(item: SourceItem): string {
  return item.blocks
    .filter((b) => b.type === 'text')
    .map(blockText)
    .join('\n');
}

interface Todo {
  readonly content: string;
  readonly status: string;
}

/** The todo list a tool call's input carries, if it is one ({ todos: [{ content, status }] }). */
function todosOf(input: string): Todo[] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(input);
  } catch {
    return null; // arguments that are not JSON are not a todo list
  }
  const todos = parsed && typeof parsed === 'object' ? (parsed as { todos?: unknown }).todos : undefined;
  if (!Array.isArray(todos)) return null;
  return todos.flatMap((t): Todo[] => {
    const rec = t && typeof t === 'object' ? (t as Record<string, unknown>) : {};
    return typeof rec.content === 'string' && typeof rec.status === 'string' ? [{ content: rec.content, status: rec.status }] : [];
  });
}

class Drafts {
  readonly facts: Fact[] = [];
  private readonly seen = new Set<string>();
  private readonly counts = new Map<string, number>();
  constructor(
    private readonly max: number,
    private readonly target: RunTarget | undefined,
  ) {}

  add(kind: string, category: FactCategory, text: string, match: Fact['match'], items: readonly string[], note: string): void {
    const key = `${category}\u0000${JSON.stringify(match)}`;
    const n = this.counts.get(kind) ?? 0;
    if (this.seen.has(key) || n >= this.max) return;
    this.seen.add(key);
    this.counts.set(kind, n + 1);
    this.facts.push({
      id: `draft-${category.replace('_', '-')}-${this.facts.filter((f) => f.category === category).length + 1}`,
      category,
      text,
      match,
      confirmed: false,
      source: { items: [...items] },
      note,
      ...(this.target ? { target: this.target } : {}),
    });
  }
}

function draftSentences(items: readonly SourceItem[], d: Drafts): void {
  for (const it of items) {
    if (it.meta || (it.role !== 'user' && it.role !== 'assistant')) continue;
    for (const s of sentences(prose(it))) {
      const match = { text: clip(s), ignoreCase: true };
      if (it.role === 'user' && CONSTRAINT.test(s))
        d.add(
          'constraint',
          'constraint',
          s,
          match,
          [it.id],
          'drafted from a user message with a constraint word; cut the matcher down to the words that must survive',
        );
      else if (DECISION.test(s))
        d.add(
          'decision',
          'decision',
          s,
          match,
          [it.id],
          `drafted from ${it.role} text that states a decision; check it was not reversed later`,
        );
      else if (OPEN_WORK.test(s)) {
        const text = s.replace(UNCHECKED, '');
        d.add(
          'open_work',
          'open_work',
          text,
          { text: clip(text), ignoreCase: true },
          [it.id],
          'drafted from text that names work still to do; check it was still open at the compaction',
        );
      }
    }
  }
  // Only the last todo list counts: earlier ones were superseded by it.
  let last: { id: string; todos: Todo[] } | null = null;
  for (const it of items) {
    for (const b of it.blocks) {
      if (b.type !== 'tool_call') continue;
      const todos = todosOf(b.input);
      if (todos) last = { id: it.id, todos };
    }
  }
  for (const t of last?.todos ?? []) {
    if (t.status === 'completed') continue;
    d.add(
      'open_work',
      'open_work',
      `${t.content} (${t.status})`,
      { text: clip(t.content), ignoreCase: true },
      [last?.id ?? ''],
      'drafted from the last todo list written before the target',
    );
  }
}

function draftAnchors(items: readonly SourceItem[], d: Drafts, max: number): void {
  const where = new Map<string, { kind: AnchorKind; items: string[]; first: number }>();
  items.forEach((it, i) => {
    const anchors = textAnchors(it.blocks.map(blockText).join('\n'), 200);
    for (const [category, kind] of ANCHOR_KINDS) {
      for (const a of anchors[category]) {
        const key = `${kind}\u0000${a}`;
        const w = where.get(key);
        if (w) w.items.push(it.id);
        else where.set(key, { kind, items: [it.id], first: i });
      }
    }
  });
  for (const [, kind] of ANCHOR_KINDS) {
    const ranked = [...where.entries()]
      .filter(([, w]) => w.kind === kind)
      .sort((a, b) => b[1].items.length - a[1].items.length || a[1].first - b[1].first)
      .slice(0, max);
    for (const [key, w] of ranked) {
      const anchor = key.slice(key.indexOf('\u0000') + 1);
      const text = `The ${kind} "${anchor}" (seen in ${w.items.length} item${w.items.length === 1 ? '' : 's'})`;
      d.add(
        kind,
        'evidence',
        text,
        { text: kind === 'error' ? anchor.slice(0, 40) : anchor },
        w.items.slice(0, 10),
        `drafted from a verbatim ${kind} anchor; say what it is evidence of, or delete the draft`,
      );
    }
  }
}

/** Candidate facts for a person to confirm; nothing here is ever scored as drafted. */
export function draftFacts(items: readonly SourceItem[], options: DraftOptions = {}): FactsFile {
  const max = options.maxPerKind ?? 25;
  const d = new Drafts(max, options.target);
  draftSentences(items, d);
  draftAnchors(items, d, max);
  return {
    format: 'palimpsest-facts',
    version: 1,
    ...(options.trace !== undefined ? { trace: options.trace } : {}),
    description:
      'Drafted by Palimpsest from the trace. Nothing here is checked: read the trace, fix each matcher, set confirmed: true on the facts that hold, delete the rest.',
    facts: d.facts,
  };
}
