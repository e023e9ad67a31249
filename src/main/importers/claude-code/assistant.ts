import type { EventOf } from '../../../shared/model/event';
import type { Item } from '../../../shared/model/item';
import { isModelCall, SYNTHETIC_MODEL } from '../../dialects/claude-model-call';
import { mapContent, mapFinish, mapUsage } from './blocks';
import type { ClaudeFile } from './file';
import { enter, itemEvent, settle } from './items';
import { type Obj, id, oneLine, str } from './json';
import { SPAWN_TOOLS } from './known';
import { dropLateAttachments } from './api-request';
import { beforeRequest, noteAssistant } from './unlogged';
import { type Branch, type Placement, type Skel, inHistory, locOf } from './skeleton';

/*
 * Assistant lines → requests (see ./importer.ts, REQUESTS): the lines of one message.id are one
 * item and one request; its response, with the usage of the message's last line, is written once
 * the message is complete.
 */

/** Write the response of the branch's last request, now that the message is complete. */
export function flush(f: ClaudeFile, b: Branch): void {
  const r = b.pending;
  if (!r) return;
  b.pending = null;
  f.s.respond(r, b);
}

export function assistant(f: ClaudeFile, v: Obj, message: Obj | undefined, skel: Skel | null, pl: Placement): void {
  const b = pl.branch;
  const s = f.s;
  const blocks = mapContent(message?.content, (what) => f.unknownBlock(what));
  if (!blocks)
    f.report(
      'CC_BAD_RECORD',
      'warning',
      `Line ${f.cur.line}: an assistant record without message content; it is kept as an empty message.`,
    );
  const msgId = id(message?.id) ?? id(v.uuid) ?? `line-${f.info.index}-${f.cur.line}`;
  const model = str(message?.model);
  const synthetic = model === SYNTHETIC_MODEL;
  const apiError = v.isApiErrorMessage === true;
  const at = str(v.timestamp);
  // A `<synthetic>` record (an API error Claude Code wrote in the model's place: "Prompt is too
  // long", a rate limit, "Not logged in") carries zeros the client filled in, not a provider's
  // report: its usage is unknown.
  const usage = synthetic || apiError ? undefined : mapUsage(message?.usage);
  const finish = mapFinish(message?.stop_reason);

  let entry = s.requests.get(msgId);
  let itemId = msgId;
  if (entry && !inHistory(b, Number.MAX_SAFE_INTEGER, entry.branch, entry.itemSeq)) {
    // The same message id on another line of history: a message of its own.
    itemId = `${msgId}~${b.name}`;
    entry = s.requests.get(itemId);
  }
  let seq: number;
  let isNew = false;
  if (entry) {
    const ext: EventOf<'item'> = { kind: 'item', item: { id: entry.id, role: 'assistant', blocks: blocks ?? [] }, op: { op: 'extend' } };
    if (at !== undefined) ext.at = at;
    seq = f.emit(b, ext);
    if (usage) entry.usage = usage;
    if (finish) entry.finish = finish;
    entry.last = locOf(f.cur);
  } else {
    isNew = true;
    const uuid = id(v.uuid);
    const preserved = uuid !== undefined && (b.preserved?.has(uuid) ?? false);
    const request = isModelCall(synthetic, apiError, preserved);
    let reqSeq = -1;
    if (request) {
      flush(f, b);
      dropLateAttachments(f, b);
      if (model !== undefined && !synthetic && model !== b.model) {
        f.emit(b, { kind: 'header', route: { model } });
        b.model = model;
      }
      const req: EventOf<'request'> = { kind: 'request', id: itemId, purpose: b.purpose };
      const unlogged = beforeRequest(f, b);
      if (unlogged) req.unlogged = unlogged;
      if (b.compactionId !== undefined) req.compactionId = b.compactionId;
      if (at !== undefined) req.at = at;
      reqSeq = f.emit(b, req);
    }
    const item: Item = { id: itemId, role: 'assistant', blocks: blocks ?? [] };
    if (apiError) item.origin = 'api-error';
    else if (synthetic) item.origin = 'synthetic';
    const ev = itemEvent(
      item,
      apiError ? { op: 'log' } : pl.before !== undefined ? { op: 'insert', before: pl.before } : { op: 'append' },
      at,
    );
    seq = f.emit(b, ev);
    entry = {
      id: itemId,
      branch: b,
      seq: reqSeq,
      itemSeq: seq,
      file: f.info.index,
      usage,
      finish,
      error: undefined,
      last: locOf(f.cur),
      responses: [],
    };
    s.requests.set(itemId, entry);
    if (!apiError) enter(b, pl, { id: itemId, seq, calls: undefined });
    if (request) {
      b.lastReq = entry;
      b.pending = entry;
    }
    if (apiError) {
      const text = blocks?.find((x) => x.type === 'text');
      entry.error = { message: text?.type === 'text' ? oneLine(text.text, 500) : 'API error' };
      const code = str(v.error);
      if (code !== undefined) entry.error.code = code;
      flush(f, b);
    }
  }
  if (blocks && !apiError) noteAssistant(f, entry.id, blocks);
  if (blocks) {
    for (const x of blocks) if (x.type === 'tool_call' && SPAWN_TOOLS.has(x.name) && skel) s.taskCalls.set(x.id, skel);
  }
  b.turnMsg = entry.id;
  if (f.hashMessages) f.api.assistant(entry.id, message?.content);
  settle(skel, pl, seq, entry.id, isNew, entry.id);
}
