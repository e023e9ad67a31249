import type { EventOf } from '../../../shared/model/event';
import type { Item } from '../../../shared/model/item';
import { mapSystem, mapTools } from './blocks';
import { registerRecord } from './dag';
import type { ClaudeFile } from './file';
import { itemEvent } from './items';
import { type Obj, obj, str } from './json';
import { branchFor, recordBranch } from './placement';
import type { Branch } from './skeleton';
import { record, typeName } from './records';
import type { PendingBlob } from './requests';
import { type NodeData, type SurfaceNode, fromArray, toArray } from './surface';

/*
 * The 2.1.332 dialect's request records: `api-request-shape` → a header with the system prompt and
 * tools; `api-request` → the branch's surface rebuilt as the messages of the call (./requests.ts
 * resolves them).
 */

export function shape(f: ClaudeFile, v: Obj): void {
  const shape = obj(v.shape);
  const system = mapSystem(shape?.system);
  const tools = mapTools(shape?.tools);
  if (!shape || (system === undefined && tools === undefined)) {
    f.report(
      'CC_BAD_RECORD',
      'warning',
      `Line ${f.cur.line}: an api-request-shape without shape.system or shape.tools; it is kept as a record.`,
    );
    return record(f, 'api-request-shape', v, str(v.shapeHash));
  }
  const a = registerRecord(f, v);
  // The request records hold the messages as sent: nothing added to them is unrecorded any more.
  const h: EventOf<'header'> = { kind: 'header', unrecorded: [], reason: `api-request-shape ${str(v.shapeHash) ?? ''}`.trim() };
  if (system !== undefined) h.system = system;
  if (tools !== undefined) h.tools = tools;
  const at = str(v.timestamp);
  if (at !== undefined) h.at = at;
  f.emit(branchFor(f, a), h);
}

/**
 * One model call of the 2.1.332 dialect, kept as a record (querySource, model, shape hash). Its
 * messages are the first `keep` messages of request `base` plus the `tail` blobs.
 */
export function apiRequest(f: ClaudeFile, v: Obj): void {
  const params = obj(v.params);
  const summary = [str(v.querySource), str(params?.model), str(v.shapeHash)].filter((x) => x !== undefined).join(' ') || undefined;
  record(f, typeName('', 'api-request'), v, summary);
  rebuildSurface(f, v);
}

/**
 * An `api-request` (2.1.332): the messages of the model call about to be made. The branch's
 * surface becomes exactly those messages: blob messages (the prompt merged with its reminders,
 * attachments rendered as a system message, the summary with its reminders) become items of
 * their own, placed where the request has them; live items the request does not send (the
 * records a blob stands for) are dropped. The request event itself follows with the response's
 * first line. When a message cannot be resolved, or the surface cannot be brought to the
 * request's order, the surface is left as it is and CC_API_REQUEST_UNRESOLVED says so.
 */
function rebuildSurface(f: ClaudeFile, v: Obj): void {
  const b = recordBranch(f, v);
  // What an earlier call left waiting is this call's business now: its surface is rebuilt whole.
  b.lateAttachments = null;
  const r = f.api.resolve(v);
  if (r.bad !== null) {
    f.findings.apiRequestBadCount(f.cur.line, r.bad);
    return;
  }
  const fail = (what: string): void => f.findings.apiRequestUnresolved(f.cur.line, what);
  if (r.unresolved.length > 0)
    return fail(
      `names ${r.unresolved.length} message${r.unresolved.length === 1 ? '' : 's'} the log does not hold (${r.unresolved
        .slice(0, 3)
        .map((h) => h.slice(0, 16))
        .join(', ')})`,
    );
  const live = toArray(b.node);
  const liveIds = new Set(live.map((n) => n.id));
  const want: { id: string; blob?: { hash: string; message: PendingBlob } }[] = [];
  const messages: string[][] = [];
  for (const m of r.messages) {
    if (!m) return fail('names a message the log does not hold');
    if ('items' in m) {
      for (const x of m.items)
        if (!liveIds.has(x)) return fail(`sends item ${x}, which is not in the view of branch ${b.name} at that point`);
      // A loop, not push(...): a run of tool results is as long as the log makes it.
      for (const x of m.items) want.push({ id: x });
      messages.push([...m.items]);
    } else {
      // A blob sent again while its first item is still in the view is an item of its own.
      const again = m.occurrence > 1 ? `-${m.occurrence}` : '';
      const itemId = `api-${m.blob.slice(0, 16)}${again}${f.info.index > 0 ? `~f${f.info.index}` : ''}`;
      want.push({ id: itemId, blob: { hash: m.blob, message: m.message } });
      messages.push([itemId]);
    }
  }
  // The items kept must already be in the request's order.
  const wantIds = new Set(want.map((w) => w.id));
  const kept = live.filter((n) => wantIds.has(n.id)).map((n) => n.id);
  const order = want.filter((w) => !w.blob).map((w) => w.id);
  if (kept.length !== order.length || kept.some((x, i) => x !== order[i])) return fail('sends the items of the view in another order');
  const drop = live.filter((n) => !wantIds.has(n.id)).map((n) => n.id);
  if (drop.length > 0) f.emit(b, { kind: 'drop', items: drop, reason: 'other' });
  const byId = new Map(live.map((n) => [n.id, n] as const));
  const nodes: NodeData[] = [];
  const at = str(v.timestamp);
  for (let i = 0; i < want.length; i++) {
    const w = want[i] as (typeof want)[number];
    if (!w.blob) {
      const n = byId.get(w.id) as SurfaceNode;
      nodes.push({ id: n.id, seq: n.seq, calls: n.calls });
      continue;
    }
    const next = want.slice(i + 1).find((x) => !x.blob);
    const blob = w.blob.message;
    const item: Item = { id: w.id, role: blob.role, blocks: blob.blocks, origin: 'api-request-blob' };
    if (blob.role === 'system') item.meta = true;
    // Located at the blob line, where its full text is re-read from.
    const seq = f.s.emit(b, itemEvent(item, next ? { op: 'insert', before: next.id } : { op: 'append' }, at), blob.at);
    f.api.itemized(w.blob.hash, w.id);
    nodes.push({ id: w.id, seq, calls: undefined });
  }
  b.node = fromArray(nodes);
  b.lateAttachments = [];
  f.api.remember(r.id, messages);
}

/**
 * Before the request event of a call whose messages an \`api-request\` gave: the attachments logged
 * since that record are dropped from the surface, as the rebuild drops those logged before it. The
 * client writes its records through a queue, so an attachment made while the call was being built
 * can land after the \`api-request\` line (its timestamp is earlier); the call did not send it, and
 * the next \`api-request\` says what is sent next.
 */
export function dropLateAttachments(f: ClaudeFile, b: Branch): void {
  const late = b.lateAttachments;
  b.lateAttachments = null;
  if (!late || late.length === 0) return;
  const gone = new Set(late);
  const live = toArray(b.node);
  const drop = live.filter((n) => gone.has(n.id)).map((n) => n.id);
  if (drop.length === 0) return;
  f.emit(b, { kind: 'drop', items: drop, reason: 'other' });
  b.node = fromArray(live.filter((n) => !gone.has(n.id)).map((n) => ({ id: n.id, seq: n.seq, calls: n.calls })));
}
