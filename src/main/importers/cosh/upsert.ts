import type { JsonLine } from '../../reader/types';
import { type Branch, ctx } from './branches';
import { canonicalItem } from './items';
import type { CoshMachine } from './machine';
import type { CoshItem, Envelope } from './parse';
import { request } from './requests';
import { type Context, type MItem, activeCheckpoint, hiddenWhy, isDisplayOnly } from './state';
import { sync } from './view';

/**
 * `item_upsert`: a new item, or a new version of one (a new canonical id, `<id>~<n>`). A new
 * visible item at the end of an unchanged view is appended directly; anything else goes through
 * the comparison of views (./view.ts).
 */

function allocCanon(mc: CoshMachine, coshId: number): string {
  let id = String(coshId);
  for (let k = 2; mc.usedCanon.has(id); k++) id = `${coshId}~${k}`;
  mc.usedCanon.add(id);
  return id;
}

export function upsert(mc: CoshMachine, b: Branch, l: JsonLine, ev: Envelope, item: CoshItem): void {
  const c = ctx(b);
  const at = c.byId.has(item.id) ? c.items.findIndex((it) => it.coshId === item.id) : -1;
  const m: MItem = {
    coshId: item.id,
    kind: item.kind,
    canon: allocCanon(mc, item.id),
    ...(item.callId !== undefined ? { callId: item.callId } : {}),
    ...(item.name !== undefined ? { name: item.name } : {}),
    ...(item.covered !== undefined ? { covered: item.covered } : {}),
  };
  const replaced = at >= 0 ? (c.items[at] as MItem) : null;
  if (replaced) {
    c.items[at] = m;
    c.byCanon.delete(replaced.canon);
  } else c.items.push(m);
  c.byId.set(item.id, m);
  c.byCanon.set(m.canon, m);
  // A mask_tool_result call masks the newest result when it is dispatched: a `masked` change
  // of the same save for exactly that result belongs here, before the call's own result.
  let relocated = false;
  if (!replaced && item.kind === 'ToolCall' && item.name === 'mask_tool_result' && mc.pendingMasks.size > 0) {
    const target = maskTarget(c);
    if (target !== null && mc.pendingMasks.has(target)) {
      mc.pendingMasks.delete(target);
      c.masked.add(target);
      relocated = true;
    }
  }
  const S = b.surface;
  if (
    !replaced &&
    !relocated &&
    !b.divergenceReported &&
    item.kind !== 'Compaction' &&
    !isDisplayOnly(item.kind) &&
    !c.masked.has(item.id) &&
    (item.kind !== 'ToolResult' || S.order.length > 0) &&
    hiddenWhy(c, activeCheckpoint(c)?.covered ?? [], item.id) === null
  ) {
    // The common case: a new visible item at the end of an unchanged view.
    request(mc, b, l, m.kind);
    mc.kindOf.set(m.canon, m.kind);
    S.append(m.canon);
    const seq = mc.emit({ kind: 'item', item: canonicalItem(item, m.canon), op: { op: 'append' } }, l, b.state.name);
    if (seq >= 0) mc.canonSeq.set(m.canon, seq);
    return;
  }
  sync(mc, b, l, { item: m, cosh: item, replaced });
}

/** `mask_newest_tool_result`'s target: the newest visible, unmasked result that is not a mask call's own. */
function maskTarget(c: Context): number | null {
  const maskCalls = new Set(c.items.filter((it) => it.kind === 'ToolCall' && it.name === 'mask_tool_result').map((it) => it.callId));
  const cover = activeCheckpoint(c)?.covered ?? [];
  for (let i = c.items.length - 1; i >= 0; i--) {
    const it = c.items[i] as MItem;
    if (it.kind !== 'ToolResult' || hiddenWhy(c, cover, it.coshId) !== null) continue;
    if (!c.masked.has(it.coshId) && !maskCalls.has(it.callId)) return it.coshId;
  }
  return null;
}
