import type { Block } from '../model/content';
import { blockText } from '../strategies/common/render';
import type { Anchor, Category } from './categories';
import { commandOfCall, commandsIn } from './extract/commands';
import { constraintsIn } from './extract/constraints';
import { decisionsIn } from './extract/decisions';
import { errorsIn } from './extract/errors';
import { identifiersIn } from './extract/identifiers';
import { numbersIn } from './extract/numbers';
import { pathsIn, pathsOfCall } from './extract/paths';
import { askOf, tasksIn, todosOfCall, type Todo } from './extract/tasks';
import { urlsIn } from './extract/urls';

/*
 * The anchors of a run of items, each with the seq of the item it was first said in. What is read
 * for each category is what someone said or did, not what a tool printed: a tool's output (a file's
 * content, a listing) would bury the anchors of the conversation under thousands of its own. The
 * exception is errors, which are mostly a tool's output.
 * - prose (the user's prompts and the assistant's text; not what the harness injected): paths, commands, identifiers, URLs, errors, numbers, decisions,
 *   open tasks (TODO, "- [ ]"); the user's prompts also give constraints, and the last prompt the ask
 *   in progress;
 * - tool calls: the paths they name, the command a shell call ran, the last todo list's open entries;
 * - tool results: errors, from results marked as errors or lines that read as error messages.
 */

export interface ForensicItem {
  readonly seq: number;
  readonly role: string;
  readonly blocks: readonly Block[];
  /** Typed by the user (not injected by the harness, not a tool result): constraints and asks come from these only. */
  readonly prompt: boolean;
}

/** At most this many anchors of one category per run of items: a range bigger than that is measured on its first ones. */
export const MAX_PER_CATEGORY = 2_000;

class Collector {
  readonly anchors: Anchor[] = [];
  private readonly seen = new Set<string>();
  private readonly counts = new Map<Category, number>();

  add(category: Category, text: string, seq: number): void {
    const key = `${category}\u0000${text}`;
    if (this.seen.has(key)) return;
    const n = this.counts.get(category) ?? 0;
    if (n >= MAX_PER_CATEGORY) return;
    this.seen.add(key);
    this.counts.set(category, n + 1);
    this.anchors.push({ category, text, seq });
  }
}

// A redacted log's stand-ins ("[REDACTED_TEXT len=128 sha=5ea94815]") say nothing the agent needs.
const REDACTED = /\[REDACTED_[A-Z_]+ len=\d+ sha=[0-9a-f]+\]/g;

function prose(blocks: readonly Block[]): string {
  return blocks
    .filter((b) => b.type === 'text')
    .map(blockText)
    .join('\n')
    .replace(REDACTED, ' ');
}

export function anchorsOfItems(items: readonly ForensicItem[]): Anchor[] {
  const c = new Collector();
  let todos: { seq: number; list: Todo[] } | null = null;
  let lastPrompt: ForensicItem | null = null;
  for (const it of items) {
    const text = prose(it.blocks);
    if (it.role === 'assistant' || it.prompt) {
      const paths = pathsIn(text);
      for (const p of paths) c.add('paths', p, it.seq);
      for (const x of commandsIn(text)) c.add('commands', x, it.seq);
      for (const x of identifiersIn(text, paths)) c.add('identifiers', x, it.seq);
      for (const x of urlsIn(text)) c.add('urls', x, it.seq);
      for (const x of errorsIn(text)) c.add('errors', x, it.seq);
      for (const x of numbersIn(text)) c.add('numbers', x, it.seq);
      for (const x of tasksIn(text)) c.add('tasks', x, it.seq);
      for (const x of decisionsIn(text)) c.add('decisions', x, it.seq);
      if (it.prompt) {
        for (const x of constraintsIn(text)) c.add('constraints', x, it.seq);
        lastPrompt = it;
      }
    }
    for (const b of it.blocks) {
      if (b.type === 'tool_call') {
        for (const p of pathsOfCall(b.input)) c.add('paths', p, it.seq);
        const cmd = commandOfCall(b.input);
        if (cmd !== null) c.add('commands', cmd, it.seq);
        for (const u of urlsIn(b.input)) c.add('urls', u, it.seq);
        const list = todosOfCall(b.input);
        if (list) todos = { seq: it.seq, list };
      } else if (b.type === 'tool_result') {
        const out = b.content.map(blockText).join('\n').replace(REDACTED, ' ');
        for (const x of errorsIn(out)) c.add('errors', x, it.seq);
      }
    }
  }
  // Only the last todo list counts: it superseded the earlier ones.
  if (todos) for (const t of todos.list) if (!t.done) c.add('tasks', t.text, todos.seq);
  if (lastPrompt) {
    const ask = askOf(prose(lastPrompt.blocks));
    if (ask !== null) c.add('tasks', ask, lastPrompt.seq);
  }
  return c.anchors;
}
