import type { EventOf } from '../../../shared/model/event';
import type { Item } from '../../../shared/model/item';
import { assistant } from './assistant';
import { answeredCalls, attachmentBlocks, mapContent } from './blocks';
import { commit, noSummary } from './compaction';
import { parentOf, register, resolve } from './dag';
import type { ClaudeFile } from './file';
import { enter, itemEvent, settle } from './items';
import { type Obj, id, obj, str } from './json';
import { place, recordBranch } from './placement';
import { noteUser } from './unlogged';
import { contains } from './surface';
import type { Placement, Skel } from './skeleton';

/*
 * Conversation records (user, assistant, attachment) → items (see ./importer.ts, ITEMS): placed on
 * their branch, entered on the importer's copy of its surface, and made its head.
 */

export function conversation(f: ClaudeFile, type: 'user' | 'assistant' | 'attachment', v: Obj): void {
  const skel = register(f, v);
  if (skel === 'duplicate') {
    // A side question's copy of the conversation before its question belongs to no branch yet:
    // the question's fork inherits the records it copies.
    if (f.aside && !f.fileBranch) return;
    const b = recordBranch(f, v);
    const summary = f.copiesConversation
      ? `copy of the conversation's record ${str(v.uuid) ?? ''}`
      : `duplicate uuid ${str(v.uuid) ?? ''}: the first record with it stands`;
    f.emit(b, { kind: 'record', type, summary });
    return;
  }
  const message = obj(v.message);
  const content = message?.content;
  const calls = type === 'user' ? answeredCalls(content) : undefined;
  const meta = v.isMeta === true || type === 'attachment';
  const prompt = type === 'user' && !meta && calls === undefined && v.isCompactSummary !== true;
  const sidechain = v.isSidechain === true;
  const p = skel ? parentOf(v, skel) : resolve(f, v.parentUuid);
  // A subagent file opened on its own: its main branch is a sidechain.
  if (!f.subagent && f.current === null && f.fileBranch) f.fileBranch.sidechain = sidechain;
  let pl = place(f, p, sidechain, prompt, id(v.agentId));
  const b = pl.branch;
  // Attachments (2.1.332 writes some between the boundary and the summary) do not end a compaction.
  if (b.compaction && type !== 'attachment' && !(type === 'user' && v.isCompactSummary === true)) {
    noSummary(f, b);
    // The record was placed before an item that this compaction, ending without a summary, has
    // just dropped: there is nothing left to go before, so it goes at the end.
    if (pl.before !== undefined && !contains(b.node, pl.before)) pl = { branch: b, parent: pl.parent };
  }
  if (type === 'assistant') assistant(f, v, message, skel, pl);
  else userItem(f, type, v, content, calls, meta, skel, pl);
  f.current = b;
  if (!f.subagent && !sidechain) f.s.leaf = b;
}

function userItem(
  f: ClaudeFile,
  type: 'user' | 'attachment',
  v: Obj,
  content: unknown,
  calls: string[] | undefined,
  meta: boolean,
  skel: Skel | null,
  pl: Placement,
): void {
  const b = pl.branch;
  const blocks =
    type === 'attachment' ? attachmentBlocks(v, (what) => f.unknownBlock(what)) : mapContent(content, (what) => f.unknownBlock(what));
  const at = str(v.timestamp);
  if (!blocks) {
    f.report('CC_BAD_RECORD', 'warning', `Line ${f.cur.line}: a user record without message content; it is kept as a record.`);
    const r: EventOf<'record'> = { kind: 'record', type, summary: 'no message content' };
    if (at !== undefined) r.at = at;
    const seq = f.emit(b, r);
    settle(skel, pl, seq, undefined, false, undefined);
    return;
  }
  const itemId = id(v.uuid) ?? `line-${f.info.index}-${f.cur.line}`;
  const item: Item = { id: itemId, role: 'user', blocks };
  if (meta) item.meta = true;
  const summary = v.isCompactSummary === true;
  if (summary) item.origin = 'isCompactSummary';
  else if (type === 'attachment') item.origin = `attachment:${str(obj(v.attachment)?.type) ?? '?'}`;
  else if (v.isMeta === true) item.origin = 'isMeta';

  let seq: number;
  if (summary && b.compaction) seq = commit(f, b, item, at);
  else {
    if (summary)
      f.report(
        'CC_SUMMARY_WITHOUT_BOUNDARY',
        'warning',
        `Line ${f.cur.line}: a compact summary with no compaction boundary before it on its branch; it is kept as a plain message.`,
      );
    seq = f.emit(b, itemEvent(item, pl.before !== undefined ? { op: 'insert', before: pl.before } : { op: 'append' }, at));
    enter(b, pl, { id: itemId, seq, calls });
    // Logged after the api-request of a call still waiting for its response: not in that call.
    if (type === 'attachment' && b.lateAttachments) b.lateAttachments.push(itemId);
  }
  if (type === 'user' && f.hashMessages) f.api.user(itemId, content);
  noteUser(f, itemId, blocks, meta || summary);
  const result = obj(v.toolUseResult);
  const agentId = id(result?.agentId);
  const call = calls?.[0];
  if (agentId !== undefined && call !== undefined) f.s.agentLinks.set(agentId, call);
  settle(skel, pl, seq, itemId, true, calls !== undefined || meta ? b.turnMsg : undefined);
}
