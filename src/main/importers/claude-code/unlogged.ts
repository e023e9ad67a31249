import type { EventOf } from '../../../shared/model/event';
import type { Block } from '../../../shared/model/content';
import { seenAutoCompact } from '../../../shared/compat/auto-compact';
import { MAX_OUTPUT_BOUND, microcompactRule, todoReminderRule } from '../../../shared/compat/claude-unlogged';
import { type McCall, type McState, MC_NONE, evaluate, resultTokens, warningGate } from '../../dialects/claude-microcompact';
import { type ReminderState, REMINDER_NONE, evaluateReminder } from '../../dialects/claude-todo-reminder';
import type { ClaudeFile } from './file';
import type { Branch } from './skeleton';
import { type SurfaceNode, toArray } from './surface';

/*
 * What Claude Code changed in a request by rules its log does not record (see ./importer.ts,
 * UNLOGGED): tool results its microcompact cleared and todo reminders it added, for the versions
 * and modes that do not log them (src/shared/compat/claude-unlogged.ts). Before each agent request
 * the rules are evaluated on the branch's surface (src/main/dialects/claude-microcompact.ts,
 * claude-todo-reminder.ts): a result certainly cleared is masked by the harness (what replaced it is
 * not recorded: a path under the directory the client ran in); whatever is not certain either way
 * is named on the request (RequestEvent.unlogged), and only where the rule could have fired.
 * The facts kept are ids and numbers, never content.
 */

/** What the session's records say that the rules read. */
export class UnloggedFacts {
  /** Tool call id → tool name. */
  readonly callNames = new Map<string, string>();
  /** Tool call id → the client's estimate of its result, and whether clearing it changes what is sent. */
  readonly results = new Map<string, { readonly tokens: number; readonly clearable: boolean; readonly item: string }>();
  /** Assistant item → its calls, its records that are not thinking only, and those after its last TodoWrite call (null: none). */
  readonly assistants = new Map<string, { calls: string[]; lines: number; afterWrite: number | null }>();
  /** Items holding nothing but tool results (a microcompact clears them whole). */
  readonly resultOnly = new Set<string>();
  /** Prompts: user records that are neither meta nor tool results (a new process may start before one). */
  readonly prompts = new Set<string>();
  /**
   * Whether a record shows the session ran interactively: print mode (2.1.9) writes only user,
   * assistant, queue-operation and compact_boundary records; an interactive session logs its
   * microcompacts.
   */
  interactive = false;
  /**
   * Whether the log has recorded a todo reminder: an interactive 2.1.9 session logs none either
   * (its wire carries them, its log has no attachment), so only a logged one shows that this
   * client's log can be trusted for them.
   */
  loggedReminder = false;
}

/** Per branch: what its process may have cleared, the reminders it may hold, the items masked here. */
export interface UnloggedBranch {
  readonly mc: McState;
  readonly reminders: ReminderState;
  /** The surface list the reminders were evaluated on (its oldest node). */
  readonly chain: SurfaceNode | null;
  readonly masked: ReadonlySet<string>;
}

export const UNLOGGED_NONE: UnloggedBranch = { mc: MC_NONE, reminders: REMINDER_NONE, chain: null, masked: new Set() };

const TODO_WRITE = 'TodoWrite';
/** The persisted-output tag a result already cleared starts with, and the older note. */
const CLEARED = ['<persisted-output>', '[Old tool result content cleared]'];

/** Record types print mode writes (besides `compact_boundary`): any other shows an interactive session. */
const HEADLESS_TYPES = new Set(['user', 'assistant', 'queue-operation']);

export function noteRecord(f: ClaudeFile, type: string, subtype: string | undefined, attachment: string | undefined): void {
  if (attachment === 'todo_reminder') f.s.unlogged.loggedReminder = true;
  if (HEADLESS_TYPES.has(type) || (type === 'system' && subtype === 'compact_boundary')) return;
  f.s.unlogged.interactive = true;
}

/** An assistant record's blocks: its calls and whether it is a message the reminder counts. */
export function noteAssistant(f: ClaudeFile, item: string, blocks: readonly Block[]): void {
  const u = f.s.unlogged;
  let a = u.assistants.get(item);
  if (!a) u.assistants.set(item, (a = { calls: [], lines: 0, afterWrite: null }));
  // A record of thinking only is not a message the reminder counts.
  if (blocks.length > 0 && blocks.every((b) => b.type === 'reasoning')) return;
  a.lines++;
  let write = false;
  for (const b of blocks)
    if (b.type === 'tool_call') {
      u.callNames.set(b.id, b.name);
      a.calls.push(b.id);
      if (b.name === TODO_WRITE) write = true;
    }
  if (write) a.afterWrite = 0;
  else if (a.afterWrite !== null) a.afterWrite++;
}

/** A user record's blocks: its results' estimates, and whether it is a prompt. */
export function noteUser(f: ClaudeFile, item: string, blocks: readonly Block[], meta: boolean): void {
  const u = f.s.unlogged;
  let results = 0;
  for (const b of blocks) {
    if (b.type !== 'tool_result') continue;
    results++;
    const texts = b.content.flatMap((c) => (c.type === 'text' ? [c.text] : []));
    const empty = b.content.length === 0 || (b.content.length === 1 && texts[0] === '');
    const cleared = texts.length === 1 && CLEARED.some((t) => (texts[0] as string).startsWith(t));
    u.results.set(b.callId, { tokens: resultTokens(b.content, 2_000), clearable: !empty && !cleared, item });
  }
  if (results > 0 && results === blocks.length) u.resultOnly.add(item);
  if (results === 0 && !meta) u.prompts.add(item);
}

/**
 * What the reminder rule and the process test read of a surface, per node, from its predecessor's:
 * one step per new item instead of a walk per request (a headless session makes thousands).
 */
interface Agg {
  /** Assistant records (not thinking only) up to this node, and those after the last TodoWrite call. */
  readonly messages: number;
  readonly sinceWrite: number;
  /** The assistant item's record count this was computed with (a later record of it makes it stale). */
  readonly lines: number;
  readonly hasAssistant: boolean;
  /** Whether a prompt follows the last assistant item (a new process may have started). */
  readonly promptSince: boolean;
  readonly lastUser: string | undefined;
  /** Tool results' estimates on the surface, all tools (an upper bound on what the rule counts). */
  readonly resultTokens: number;
  /** The oldest node: a compaction (or an insertion) rebuilds the list, and so changes it. */
  readonly oldest: SurfaceNode;
}

const aggs = new WeakMap<SurfaceNode, Agg>();

function aggOf(u: UnloggedFacts, node: SurfaceNode): Agg {
  // Down to the newest node with a valid aggregate, then up again: no recursion on long surfaces.
  const todo: SurfaceNode[] = [];
  let base: Agg | undefined;
  for (let n: SurfaceNode | null = node; n; n = n.prev) {
    const a = aggs.get(n);
    if (a && a.lines === (u.assistants.get(n.id)?.lines ?? 0)) {
      base = a;
      break;
    }
    todo.push(n);
  }
  for (let k = todo.length - 1; k >= 0; k--) {
    const n = todo[k] as SurfaceNode;
    const a = u.assistants.get(n.id);
    const prev = base;
    let tokens = prev?.resultTokens ?? 0;
    for (const c of n.calls ?? []) tokens += u.results.get(c)?.tokens ?? 0;
    base = {
      messages: (prev?.messages ?? 0) + (a?.lines ?? 0),
      sinceWrite: a ? (a.afterWrite ?? (prev?.sinceWrite ?? 0) + a.lines) : (prev?.sinceWrite ?? 0),
      lines: a?.lines ?? 0,
      hasAssistant: (prev?.hasAssistant ?? false) || a !== undefined,
      promptSince: a ? false : (prev?.promptSince ?? false) || u.prompts.has(n.id),
      lastUser: a ? prev?.lastUser : n.id,
      resultTokens: tokens,
      oldest: prev?.oldest ?? n,
    };
    aggs.set(n, base);
  }
  return base as Agg;
}

/** The tool calls on the surface, in order, with their results' estimates (a walk: only when the rule may fire). */
function callsOn(u: UnloggedFacts, head: SurfaceNode | null): { calls: McCall[]; onSurface: Set<string> } {
  const nodes = toArray(head);
  const onSurface = new Set<string>();
  for (const n of nodes) for (const c of n.calls ?? []) onSurface.add(c);
  const calls: McCall[] = [];
  for (const n of nodes)
    for (const id of u.assistants.get(n.id)?.calls ?? [])
      calls.push({ id, name: u.callNames.get(id) ?? '', tokens: onSurface.has(id) ? u.results.get(id)?.tokens : undefined });
  return { calls, onSurface };
}

/**
 * Before agent request on branch `b`: masks for the results certainly cleared (emitted here) and
 * what the request names as unlogged. Nothing for a version without the rules.
 */
export function beforeRequest(f: ClaudeFile, b: Branch): EventOf<'request'>['unlogged'] {
  const version = f.lastVersion;
  const u = f.s.unlogged;
  const mcRule = microcompactRule(version);
  const remRule = todoReminderRule(version);
  const mcOn = mcRule !== null && !(mcRule.logged === 'interactive' && u.interactive);
  // Reminders: named until the log shows it records them (see UnloggedSession.loggedReminder).
  const remOn = remRule !== null && !u.loggedReminder;
  if ((!mcOn && !remOn) || b.purpose !== 'agent' || !b.node) return undefined;

  const agg = aggOf(u, b.node);
  // A new process (a resumed session) can start only before a prompt.
  const sameProcess = agg.hasAssistant && !agg.promptSince;
  const messages = agg.messages;
  const sinceWrite = agg.sinceWrite;
  const lastUser = agg.lastUser;
  const out: NonNullable<EventOf<'request'>['unlogged']> = [];
  let state = b.unlogged;

  const usage = b.lastReq ? b.lastReq.usage : { input: 0, output: 0 };
  const reported = usage ? (usage.input ?? 0) + (usage.cacheRead ?? 0) + (usage.cacheWrite ?? 0) : 0;
  const seen = seenAutoCompact('claude-code', version, b.model);
  const mcInput = mcRule && {
    rule: mcRule,
    usage: usage
      ? { low: reported + (usage.output ?? 0), high: reported + Math.max(usage.output ?? 0, b.lastReq ? MAX_OUTPUT_BOUND : 0) }
      : null,
    trigger: seen ? { below: seen.below ?? 0, at: seen.at } : null,
    sameProcess,
    state: state.mc,
  };
  // Nothing to clear, in any process, unless the reply may be past the threshold and the results
  // may pass the budget by the saving; nothing to lift unless something may be cleared already.
  const mayFire = mcInput !== null && warningGate(mcInput) !== 'no' && agg.resultTokens >= mcInput.rule.budget + mcInput.rule.minSaving;
  if (mcOn && mcInput && (mayFire || state.mc.possible.size > 0)) {
    const { calls, onSurface } = callsOn(u, b.node);
    const r = evaluate({ ...mcInput, calls });
    const sent = (id: string): boolean => onSurface.has(id) && u.results.get(id)?.clearable === true;
    const masked = new Set<string>();
    const maybe = [...r.maybe].filter(sent);
    for (const id of [...r.certain].filter(sent)) {
      const item = u.results.get(id)?.item as string;
      if (u.resultOnly.has(item)) masked.add(item);
      else maybe.push(id);
    }
    const mask = [...masked].filter((i) => !state.masked.has(i));
    const unmask = [...state.masked].filter((i) => !masked.has(i));
    if (unmask.length > 0) f.emit(b, { kind: 'mask', items: unmask, masked: false, by: 'harness' });
    if (mask.length > 0) f.emit(b, { kind: 'mask', items: mask, masked: true, by: 'harness' });
    if (masked.size > 0)
      out.push({
        why: `Claude Code ${version ?? ''} cleared ${masked.size === 1 ? 'a tool result' : `${masked.size} tool results`} before this request (microcompact, by its rule with its default settings; ${mcRule.logged === 'never' ? 'this version logs no record of it' : 'its print mode logs no record of it'}): the note it sent in their place names a file under the directory it ran in, which the log does not record (items: ${[...masked].join(', ')})`,
      });
    if (maybe.length > 0)
      out.push({
        why: `Claude Code ${version ?? ''} may have cleared these tool results before this request (microcompact, not logged): ${mcWhy(mcRule.read, sameProcess)}`,
        calls: maybe,
      });
    state = { ...state, mc: r.state, masked };
  }

  if (remOn && remRule && lastUser !== undefined && (sinceWrite >= remRule.sinceWrite || state.reminders.count > 0)) {
    // A reminder travels with its item; a rebuilt surface (a compaction) no longer holds them.
    const chain = agg.oldest;
    const r = evaluateReminder({
      rule: remRule,
      messages,
      sinceWrite,
      item: lastUser,
      sameProcess,
      canBeSure: remRule.unloggedHeadless && !b.sidechain,
      live: state.chain === chain,
      state: state.reminders,
    });
    if (r.newest)
      out.push({
        why:
          r.fired === 'yes'
            ? `Claude Code ${version ?? ''} adds a todo reminder (a <system-reminder> text) to this user message: no TodoWrite call for ${remRule.sinceWrite} assistant messages; its print mode does not log it, and its text (with the todo list) is not recorded`
            : `a todo reminder (a <system-reminder> text) may be in this user message: Claude Code ${version ?? ''} adds one after ${remRule.sinceWrite} assistant messages without a TodoWrite call and does not log it in print mode; whether it did here depends on what the log does not say (a new process, the tools offered)`,
        item: r.newest.item,
      });
    // The ones before it, which the process may still send: one entry from the first of them on.
    const e = r.earlier;
    if (e?.first)
      out.push({
        why: `${e.count === 1 ? 'a todo reminder' : `${e.count} todo reminders`} Claude Code ${version ?? ''} ${e.allSure ? 'added' : 'may have added'} earlier without logging ${e.count === 1 ? 'it' : 'them'} ${e.allSure ? 'travel' : 'may travel'} in user messages from this one on (the same process sends them again; a resumed one does not)`,
        item: e.first.item,
        onward: true,
      });
    state = { ...state, reminders: r.state, chain };
  }
  b.unlogged = state;
  return out.length > 0 ? out : undefined;
}

function mcWhy(read: boolean, sameProcess: boolean): string {
  if (!read) return "this version's rule was not read, and where it would clear, these results were";
  return sameProcess
    ? 'the last reply reported a size too close to the warning threshold the log leaves unknown for this model'
    : 'a new process (a resumed session) starts with nothing cleared, the same process keeps what it cleared, and the log does not say which ran';
}
