import type { Block } from '../../../shared/model/content';
import type { EventOf } from '../../../shared/model/event';
import type { Derivation } from '../../../shared/model/item';
import type { JsonLine } from '../../reader/types';
import { type MappedItem, mapResponseItem, mappedItem } from './blocks';
import { closeCall } from './calls';
import { selectUserMessages, summaryText } from './compaction';
import { BRIDGE_MAX_BYTES, type BridgePiece, historyBridge, usesHistoryBridge } from './history-bridge';
import { APPEND, type ItemInfo, LOG, type PlaceOpts, match, place } from './history';
import { isObj, str } from './json';
import type { CodexState } from './state';

/**
 * `compacted`: the compaction bracket (start, the summarizer request and response, the summary),
 * then the new history — its checkpoint covering every old item, the rest placed around it as
 * re-injected copies or new items — that replaces the whole old one. The bracket is closed by
 * ./token-counts.ts (`endCompaction`) after Codex's re-estimate, or at the next line.
 */

interface Entry {
  /** Index in the replacement history (the item id's suffix). */
  readonly index: number;
  readonly mapped: MappedItem;
  /** The original this entry copies, when known without matching (legacy rebuild); null: none. */
  readonly orig?: ItemInfo | null;
  /** Origin to give the copy. */
  readonly origin?: string;
  /** The line the copy's text is re-read from; undefined: the `compacted` line. */
  readonly from?: JsonLine;
  /** A piece of Codex 0.47's history bridge (./history-bridge.ts). */
  readonly piece?: BridgePiece;
  /** Codex cut the copy in a way the log does not record: masked, shown as unknown. */
  readonly masked?: boolean;
}

export function compacted(s: CodexState, p: unknown): void {
  if (!isObj(p)) {
    s.bad('compacted', 'compacted has no payload object');
    return;
  }
  closeCall(s);
  const line = s.cur.line;
  const id = `cmp:L${line}`;
  const message = str(p.message) ?? '';
  const notes: string[] = [];
  let entries: Entry[] | undefined;
  if (Array.isArray(p.replacement_history)) {
    entries = [];
    p.replacement_history.forEach((raw, index) => {
      const m = isObj(raw)
        ? mapResponseItem(raw, `L${line}.r${index}`, notes)
        : ({ ok: false, problem: 'a replacement_history entry is not an object' } as const);
      if (m.ok) (entries as Entry[]).push({ index, mapped: m.item });
      else {
        notes.push(`replacement_history[${index}]: ${m.problem} is left out of the new history`);
        if (!m.ok && 'unknownType' in m && m.unknownType !== undefined) s.countUnknown(`response_item/${m.unknownType}`, null);
      }
    });
  } else if (p.replacement_history !== undefined && p.replacement_history !== null) {
    s.report(
      'CODEX_BAD_RECORD',
      'error',
      `Line ${line}: compacted.replacement_history is not an array; the new history is rebuilt by Codex's rule for rollouts without one.`,
    );
  }
  s.notes(notes);
  const remote = entries?.some((e) => e.mapped.compaction) ?? false;
  const strategy = entries === undefined ? 'local (rebuilt: no replacement_history)' : remote ? 'remote' : 'local';
  const old = s.live;
  const oldSet = new Set(old);
  const oldSeqs = s.liveSeqs;

  // The context Codex compacted: the last agent call's prompt + output (a local summarizer's own
  // report, in the token_count right before, does not count).
  const usageFrom = s.pending.take();
  const reply = s.summarizer;
  s.summarizer = null;
  const pre = usageFrom ? usageFrom.before : s.lastContext;
  // Codex 0.171 runs its pre-turn compaction before it logs the turn's user message: at the start
  // of a turn, the place does not tell an automatic compaction from /compact.
  const trigger = reply && s.turn.untouched ? 'unknown' : triggerOf(s);
  const start: EventOf<'compaction/start'> = { kind: 'compaction/start', id, trigger, strategy, source: old };
  if (pre !== undefined) start.preTokens = pre;
  if (s.window !== undefined) start.policy = { window: s.window };
  const startSeq = s.emit(start);

  // The summarizer call. A local compaction logs its usage in the token_count right before this
  // line; a remote one (the compact endpoint) logs none. The call sends the whole history plus
  // an instruction that is not logged.
  const reqId = `req:${++s.requestCount}`;
  s.emit({ kind: 'request', id: reqId, purpose: 'compaction', compactionId: id, input: { items: old, instruction: null } });
  if (reply) {
    // Codex 0.171+ logs the summarizer's reply as an assistant message: its output, never sent
    // to the agent (the summary reaches the history as the prefixed user message).
    const rnotes: string[] = [];
    const m = mapResponseItem(reply.payload, `L${reply.line.line}`, rnotes);
    if (m.ok)
      place(
        s,
        `L${reply.line.line}`,
        { ...m.item, key: undefined },
        { op: LOG, origin: 'compaction summarizer reply', from: reply.line, meta: true },
      );
  }
  const usage = reply?.usage?.usage ?? usageFrom?.usage;
  const usageLine = reply?.usage?.from ?? usageFrom?.from;
  const response: EventOf<'response'> = { kind: 'response', request: reqId };
  if (usage) response.usage = usage;
  s.emit(response, usageLine ?? s.cur, usageLine ? str(usageLine.value.timestamp) : s.at);

  const ckEntry = remote ? lastOf(entries, (e) => e.mapped.compaction) : undefined;
  const summaryBlocks: Block[] = ckEntry ? ckEntry.mapped.blocks : [{ type: 'text', text: message }];
  const summary: EventOf<'compaction/summary'> = { kind: 'compaction/summary', id, summary: summaryBlocks, source: old, request: reqId };
  if (usage) summary.usage = usage;
  const summarySeq = s.emit(summary);

  if (entries === undefined) entries = legacyEntries(s, line, message);
  let ck = ckEntry;
  if (!ck && !remote)
    ck =
      lastOf(entries, (e) => e.mapped.summary) ??
      (message !== '' ? lastOf(entries, (e) => e.mapped.role === 'user' && e.mapped.userText === message) : undefined);

  const fresh: string[] = [];
  const freshSeqs: number[] = [];
  const used = new Set<string>();
  s.live = [];
  s.liveSeqs = [];
  const copy = (e: Entry, op: EventOf<'item'>['op']): void => {
    const orig = e.orig !== undefined ? e.orig : match(s, e.mapped.key, oldSet, used);
    if (orig) used.add(orig.id);
    const opts: PlaceOpts = { op, origin: e.origin ?? e.mapped.origin ?? 'replacement_history' };
    if (orig) {
      opts.derivation = { kind: 'reinjected', of: [orig.id] };
      opts.sources = [orig.seq];
      opts.meta = orig.context || e.mapped.contextual;
    }
    // An item Codex never sends (a ghost snapshot, kept for /undo) stays display-only in the new
    // history too: the replacement history carries it, every prompt filters it out.
    if (e.mapped.flow === 'log') opts.op = LOG;
    const cid = `L${line}.r${e.index}`;
    if (e.from) opts.from = e.from;
    place(s, cid, e.mapped, opts);
    if (opts.op.op !== 'log') {
      fresh.push(cid);
      freshSeqs.push(s.liveSeqs[s.liveSeqs.length - 1] as number);
    }
  };

  if (ck) {
    // The checkpoint first: it covers every item of the old history and takes them off the
    // surface. The rest of the new history is placed around it in order, so the copies find
    // their originals already gone and become re-injections.
    const ckId = `L${line}.r${ck.index}`;
    const derivation: Derivation = { kind: 'checkpoint', compactionId: id, covers: old, part: 'summary' };
    place(s, ckId, ck.mapped, {
      op: APPEND,
      derivation,
      sources: [startSeq, summarySeq, ...oldSeqs],
      origin: ck.origin ?? (ck.mapped.compaction ? 'compaction' : 'compaction summary'),
      meta: true,
    });
    const ckSeq = s.liveSeqs[s.liveSeqs.length - 1] as number;
    for (const e of entries) {
      if (e === ck) {
        fresh.push(ckId);
        freshSeqs.push(ckSeq);
      } else copy(e, e.index < ck.index ? { op: 'insert', before: ckId } : APPEND);
    }
  } else {
    if (old.length > 0) s.emit({ kind: 'drop', items: old, reason: 'compaction', compactionId: id });
    s.report(
      'CODEX_COMPACTION_SHAPE',
      'warning',
      `Line ${line}: the compaction's new history has no summary item (no encrypted compaction item, no user message with Codex's summary prefix); the old history is dropped and the new one placed as it is.`,
    );
    for (const e of entries) copy(e, APPEND);
  }
  s.live = fresh;
  s.liveSeqs = freshSeqs;
  placedBridge(s, line, entries);
  maskCut(s, line, entries);
  s.turn.compacted();
  s.lastContext = undefined;
  s.compaction.open(id, s.cur);
}

/** Tool outputs: after one, the agent loop samples again; `/compact` never runs between the two. */
const TOOL_OUTPUTS = new Set(['function_call_output', 'custom_tool_call_output', 'local_shell_call_output', 'tool_search_output']);

/**
 * `auto` when the compaction happens inside a turn that already logged input or model calls
 * (Codex's auto-compaction before or between sampling rounds), `manual` when it is the first
 * thing of its turn (`/compact` runs as a turn of its own), `unknown` outside any turn — unless it
 * comes right after a tool output: only the agent loop compacts there. Rollouts of Codex 0.7x do
 * not log turn starts, so without that the same mid-turn compaction was `unknown` in 0.77 and
 * `auto` in 0.117.
 */
function triggerOf(s: CodexState): EventOf<'compaction/start'>['trigger'] {
  if (!s.turn.open) return s.lastPlaced !== undefined && TOOL_OUTPUTS.has(s.lastPlaced) ? 'auto' : 'unknown';
  return s.turn.untouched ? 'manual' : 'auto';
}

/**
 * A `compacted` record without `replacement_history` (older Codex): the new history by Codex's
 * rule (./compaction.ts) — the latest initial context, the newest user messages within 20,000
 * tokens, the summary — or, for a Codex before 0.59, the initial context and a history bridge
 * (./history-bridge.ts). Said in a diagnostic, with the estimate it uses.
 */
function legacyEntries(s: CodexState, line: number, message: string): Entry[] {
  const entries: Entry[] = [];
  let index = 0;
  for (const c of s.initialContext) {
    if (c.mapped) entries.push({ index: index++, mapped: c.mapped, orig: c, origin: 'rebuilt: initial context', from: c.at });
  }
  if (usesHistoryBridge(s.version, message)) return bridgeEntries(s, line, message, entries);
  const users = s.live.map((id) => s.infos.get(id)).filter((x): x is ItemInfo => x !== undefined && x.userText !== undefined);
  const kept = selectUserMessages(users.map((u) => u.userText as string));
  let cut = 0;
  for (const k of kept) {
    const orig = users[k.index] as ItemInfo;
    const text = orig.userText as string;
    // A copy of one Codex cut is counted whole, not as the cut text Codex counts: it is still over
    // the budget, so it is cut (masked) again, and as the oldest user message (the walk's last)
    // it is kept exactly when Codex keeps it: while tokens are left.
    if (k.truncated) cut++;
    const mapped = mappedItem('message', 'user', [{ type: 'text', text }], 'input', { userText: text });
    // Each copy is emitted from its original's line, so that its text re-reads whole there (long
    // texts are kept elided in memory). A copy Codex cut holds what is certain, the message it was
    // cut from, and is masked as the history bridge's cut pieces are: the log does not record
    // where Codex cut it, and the view says so rather than show a cut of our own.
    const origin = k.truncated ? 'rebuilt: user message cut to the token budget' : 'rebuilt: user message';
    entries.push({ index: index++, mapped, orig, origin, from: orig.at, masked: k.truncated });
  }
  const text = summaryText(message);
  entries.push({
    index,
    mapped: mappedItem('message', 'user', [{ type: 'text', text }], 'input', { summary: true }),
    orig: null,
  });
  const ctx = s.initialContext.length;
  s.report(
    'CODEX_LEGACY_COMPACTION',
    'info',
    `Line ${line}: compacted without replacement_history (an older Codex). The history after it is rebuilt by Codex's rule, not read from the log: ${ctx > 0 ? `the initial context recorded at line ${s.initialContextLine ?? '?'} (${ctx} message${ctx === 1 ? '' : 's'})` : 'no initial context (none was recorded)'}, ${kept.length} of ${users.length} user message${users.length === 1 ? '' : 's'} (newest first within 20,000 tokens, counted as Codex estimates them: 4 bytes per token${cut > 0 ? '; the oldest kept one cut to the budget, where Codex cut it is not recorded, so it is shown as unknown' : ''}), and the summary as one user message.`,
    [],
    line,
  );
  return entries;
}

/**
 * The new history of a Codex that sent a history bridge (./history-bridge.ts): the initial
 * context, then the bridge's pieces — its head, every user message of the history (an earlier
 * bridge's pieces among them), the summary — which is the checkpoint.
 */
function bridgeEntries(s: CodexState, line: number, message: string, entries: Entry[]): Entry[] {
  const ctx = entries.length;
  const bridge = historyBridge(s, message);
  for (const p of bridge.pieces) {
    const mapped = mappedItem('message', 'user', [{ type: 'text', text: p.text }], 'input', { summary: p.summary });
    entries.push({ index: entries.length, mapped, orig: p.orig, origin: p.origin, from: p.from, piece: p, masked: p.masked });
  }
  s.report(
    'CODEX_LEGACY_COMPACTION',
    'info',
    `Line ${line}: compacted without replacement_history (Codex ${s.version ?? '?'}). The history after it is rebuilt by that Codex's rule, not read from the log: ${ctx > 0 ? `the initial context recorded at line ${s.initialContextLine ?? '?'} (${ctx} message${ctx === 1 ? '' : 's'})` : 'no initial context (none was recorded)'}, then one user message holding the ${bridge.users} user message${bridge.users === 1 ? '' : 's'} of the history and the summary, shown in pieces${bridge.cut ? `; the user messages were longer than Codex keeps (${BRIDGE_MAX_BYTES} bytes), and how it cut them is not recorded, so they are shown as unknown` : ''}.`,
    [],
    line,
  );
  return entries;
}

/** Keep what the next bridge needs of this one's pieces. */
function placedBridge(s: CodexState, line: number, entries: readonly Entry[]): void {
  // Where the pieces without a line of their own are re-read: this line, without its value.
  const here = { value: {}, line: s.cur.line, offset: s.cur.offset, length: s.cur.length };
  for (const e of entries) {
    const p = e.piece;
    if (p) s.bridges.set(`L${line}.r${e.index}`, { text: p.text, from: p.from ?? here, summary: p.summary });
  }
}

/** Mask the user messages Codex cut in a way the log does not record (a bridge's, or one cut to the token budget). */
function maskCut(s: CodexState, line: number, entries: readonly Entry[]): void {
  const masked = entries.filter((e) => e.masked === true).map((e) => `L${line}.r${e.index}`);
  if (masked.length > 0) s.emit({ kind: 'mask', items: masked, masked: true, by: 'harness' });
}

function lastOf<T>(xs: readonly T[] | undefined, f: (x: T) => boolean): T | undefined {
  if (!xs) return undefined;
  for (let i = xs.length - 1; i >= 0; i--) if (f(xs[i] as T)) return xs[i];
  return undefined;
}
