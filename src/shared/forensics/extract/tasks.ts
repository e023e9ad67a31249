import { sentences } from '../text';

/*
 * Open tasks: what was still to do when the items were compacted — the pending entries of the last
 * todo list a tool call wrote (Claude Code's TodoWrite {todos: [{content, status}]}, Codex's
 * update_plan {plan: [{step, status}]}), unchecked "- [ ]" boxes and TODO/FIXME lines in prose, and
 * the prompt the agent was answering (the last user prompt of the range: the ask in progress).
 */

export interface Todo {
  readonly text: string;
  readonly done: boolean;
}

/** The todo list a tool call's input carries; null when it carries none. */
export function todosOfCall(input: string): Todo[] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(input);
  } catch {
    return null;
  }
  if (!parsed || typeof parsed !== 'object') return null;
  const o = parsed as Record<string, unknown>;
  const list = Array.isArray(o.todos) ? o.todos : Array.isArray(o.plan) ? o.plan : null;
  if (!list) return null;
  const out: Todo[] = [];
  for (const t of list) {
    if (!t || typeof t !== 'object') continue;
    const r = t as Record<string, unknown>;
    const text = typeof r.content === 'string' ? r.content : typeof r.step === 'string' ? r.step : null;
    if (text === null || text.trim().length === 0) continue;
    out.push({ text: text.trim(), done: r.status === 'completed' || r.status === 'done' });
  }
  return out;
}

const OPEN = /^\[ \]\s+|\b(?:TODO|FIXME)\b[:\s]/;

/** Unchecked boxes and TODO/FIXME lines of a text. */
export function tasksIn(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const t = line.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, '').trim();
    if (OPEN.test(t) && t.length >= 8 && t.length <= 300) out.push(t.replace(/^\[ \]\s+/, ''));
  }
  return out;
}

/** The ask of a prompt: its first sentence that asks for something, else its first sentence. */
export function askOf(prompt: string): string | null {
  const all = sentences(prompt, 8, 300);
  return (
    all.find((s) =>
      /\?$|^(?:please|can you|could you|let'?s|now|fix|add|make|implement|write|run|check|update|remove|create)\b/i.test(s),
    ) ??
    all[0] ??
    null
  );
}
