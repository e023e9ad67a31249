import type { JsonLine } from '../../reader/types';
import { header } from './branch-deltas';
import { type Branch, cloneB, key } from './branches';
import type { CoshMachine } from './machine';
import type { Envelope, Reference } from './parse';
import { writeTodo } from './plan';
import { applySelection, repair } from './state';
import { sync } from './view';

// Fork, revert, rollback: references resolved to canonical refs, then the selection applied.

function refFailure(mc: CoshMachine, l: JsonLine, ev: Envelope, message: string): null {
  mc.record(l, ev.branch, ev.delta.type, `not replayed: ${message}`);
  mc.out.report(
    'COSH_BAD_REF',
    'error',
    `Line ${l.line}: ${ev.delta.type} on branch ${ev.branch}: ${message}. cosh refuses the whole history here; Palimpsest ignores the event and reads on.`,
    [],
    l.line,
  );
  return null;
}

export function reference(mc: CoshMachine, l: JsonLine, ev: Envelope): Branch | null {
  const d = ev.delta;
  if (d.type !== 'fork' && d.type !== 'revert' && d.type !== 'rollback') return null;
  const ref = d.type === 'fork' ? d.parent : d.target;
  if (d.type !== 'fork') {
    if (ref.branch !== ev.branch) return refFailure(mc, l, ev, `its target is on branch ${ref.branch} (CrossBranchReference)`);
    const current = mc.branches.get(ev.branch);
    if (!current) return refFailure(mc, l, ev, 'the branch does not exist (MissingBranch)');
    if (d.type === 'revert') mc.revertCache.set(key(ev.branch, current.state.head), cloneB(current));
  } else if (mc.branches.has(ev.branch)) {
    return refFailure(mc, l, ev, 'the branch already exists (DuplicateBranch)');
  }
  const resolved = resolve(mc, ref, ev.branch);
  if (typeof resolved === 'string') return refFailure(mc, l, ev, resolved);
  const seq = mc.lastSeq.get(key(ref.branch, ref.event)) ?? 0;
  const target = { branch: ref.branch, seq };
  let label: string | undefined;
  if (d.type === 'fork') {
    label = d.meta.title;
    mc.emit({ kind: 'fork', parent: target, label }, l, ev.branch);
    header(mc, l, ev.branch, d.meta, false);
  } else if (d.type === 'revert') {
    label = d.preview ? `${d.label}: ${d.preview}` : d.label;
    mc.emit({ kind: 'revert', target, label }, l, ev.branch);
  } else {
    mc.emit({ kind: 'rollback', target, label: d.label }, l, ev.branch);
  }
  mc.branches.set(ev.branch, resolved);
  sync(mc, resolved, l, null);
  if (ref.selection.kind !== 'at_event' && resolved.state.context)
    writeTodo(mc, resolved, l, resolved.state.context.todo, resolvedAfter(resolved), false);
  return resolved;
}

/** The binding of the plan a selection resolved to (`todo_points.last()`). */
function resolvedAfter(b: Branch): number | null | undefined {
  const last = b.state.todoPoints[b.state.todoPoints.length - 1];
  return last ? last[0] : undefined;
}

/** `HistoryProjection::resolve`: the state of a reference, as a new branch named `name`. */
function resolve(mc: CoshMachine, ref: Reference, name: string): Branch | string {
  const k = key(ref.branch, ref.event);
  let base = mc.revertCache.get(k);
  if (!base) {
    const head = mc.branches.get(ref.branch);
    if (head && head.state.head === ref.event) base = head;
  }
  base ??= mc.pastState(ref) ?? undefined;
  if (!base) return `its reference (branch ${ref.branch}, event ${ref.event}) names no replayed event of that branch (MissingReference)`;
  const b = cloneB(base, name);
  if (b.state.context) repair(b.state.context);
  const err = applySelection(b.state, ref.selection);
  if (err)
    return err.kind === 'missing-message'
      ? `message ${err.messageId} is not in the referenced state (MissingMessage)`
      : `message ${err.messageId} has no context boundary there (MissingContextBoundary)`;
  if (ref.selection.kind !== 'at_event' && b.state.context) {
    const last = b.state.todoPoints[b.state.todoPoints.length - 1];
    b.state.context.todo = last ? (mc.todoValues.get(last[1]) ?? null) : null;
  }
  b.lastNewKind = null;
  return b;
}
