import type { EventOf } from '../../../shared/model/event';
import type { JsonLine } from '../../reader/types';
import type { Branch } from './branches';
import { context } from './context-deltas';
import type { CoshMachine } from './machine';
import type { BranchMeta, Envelope } from './parse';
import { greatest, least, newBranch } from './state';
import { CanonSurface } from './surface';

/** Ids a record's summary names, at most: a log may list any number. */
const MAX_CITED_IDS = 20;

function citeIds(ids: readonly number[]): string {
  const more = ids.length - MAX_CITED_IDS;
  return more > 0 ? `${ids.slice(0, MAX_CITED_IDS).join(', ')}, and ${more} more` : ids.join(', ');
}

/**
 * Deltas that start a branch or change what it shows besides the context: `genesis`, `metadata`
 * (title, model), display `message`s, `snapshot`, `tombstone`; `context` deltas go on to
 * ./context-deltas.ts.
 */

export function header(
  mc: CoshMachine,
  l: JsonLine,
  branch: string,
  m: { provider: string | null; model: string | null; reasoning: string | null },
  genesis: boolean,
): void {
  const route: NonNullable<EventOf<'header'>['route']> = {};
  if (m.provider !== null) route.provider = m.provider;
  if (m.model !== null) route.model = m.model;
  if (m.reasoning !== null) route.reasoning = m.reasoning;
  const h: EventOf<'header'> = { kind: 'header', route };
  if (genesis) {
    // cosh persists neither its system prompt nor its tool schemas.
    h.system = null;
    h.tools = null;
    h.reason = 'genesis';
  }
  mc.emit(h, l, branch);
}

export function genesis(mc: CoshMachine, l: JsonLine, ev: Envelope, meta: BranchMeta): Branch | null {
  if (mc.branches.has(ev.branch)) {
    mc.record(l, ev.branch, 'genesis', 'not replayed: the branch already exists');
    mc.out.report(
      'COSH_BAD_REF',
      'error',
      `Line ${l.line}: a second genesis for branch ${ev.branch}; cosh refuses the whole history here (DuplicateBranch). Ignored.`,
      [],
      l.line,
    );
    return null;
  }
  if (meta.sessionId !== ev.branch) {
    mc.out.report(
      'COSH_BAD_REF',
      'error',
      `Line ${l.line}: genesis of branch ${ev.branch} names session ${meta.sessionId}; cosh refuses the whole history here (InvalidGenesisBranch). Replayed anyway.`,
      [],
      l.line,
    );
  }
  const b: Branch = {
    state: newBranch(ev.branch, ev.eventId),
    surface: new CanonSurface(),
    todoCanon: null,
    lastNewKind: null,
    open: null,
    divergenceReported: false,
  };
  mc.branches.set(ev.branch, b);
  header(mc, l, ev.branch, meta, true);
  mc.record(l, ev.branch, 'genesis', `${meta.title}${meta.cwd ? ` in ${meta.cwd}` : ''}`);
  return b;
}

export function change(mc: CoshMachine, b: Branch, l: JsonLine, ev: Envelope, type: string): void {
  const d = ev.delta;
  const st = b.state;
  switch (d.type) {
    case 'metadata':
      if (d.change.field === 'title') mc.record(l, ev.branch, type, d.change.title);
      else if (d.change.provider === null && d.change.model === null && d.change.reasoning === null)
        mc.record(l, ev.branch, type, 'model cleared');
      else header(mc, l, ev.branch, d.change, false);
      return;
    case 'message': {
      const c = d.change;
      if (c.op === 'upsert') {
        const ids = c.contextItemIds;
        if (ids.length > 0 && !st.boundaries.has(c.messageId)) st.boundaries.set(c.messageId, { first: least(ids), last: greatest(ids) });
        if (!st.messages.includes(c.messageId)) st.messages.push(c.messageId);
        if (ids.length === 0) st.ctxIds.delete(c.messageId);
        else st.ctxIds.set(c.messageId, ids.slice());
        mc.record(l, ev.branch, type, `display message ${c.messageId}${ids.length > 0 ? ` (context items ${citeIds(ids)})` : ''}`);
      } else {
        st.messages = st.messages.filter((m) => m !== c.messageId);
        st.ctxIds.delete(c.messageId);
        st.boundaries.delete(c.messageId);
        mc.record(l, ev.branch, type, `display message ${c.messageId} removed`);
      }
      return;
    }
    case 'snapshot':
      mc.record(l, ev.branch, type, `${d.name} → ${d.target.branch}@${d.target.event}`);
      return;
    case 'tombstone':
      st.deleted = true;
      mc.record(l, ev.branch, type, `branch ${ev.branch} deleted (kept in the file)`);
      return;
    case 'context':
      context(mc, b, l, ev, d.change, type);
      return;
    default:
      return;
  }
}
