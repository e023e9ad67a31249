import type { JsonLine } from '../../reader/types';
import { type Branch, ctx } from './branches';
import type { CoshMachine } from './machine';
import type { ContextChange, Envelope } from './parse';
import { writeTodo } from './plan';
import { mapEvent, staging } from './staging';
import { newContext, repair, setItems } from './state';
import { upsert } from './upsert';
import { sync } from './view';

/**
 * `context` deltas, one handler per field: each updates the branch's mirror of cosh's context
 * state, then writes what changed — the view (./view.ts), the plan (./plan.ts), the staging
 * (./staging.ts) — or a record.
 */

export function context(mc: CoshMachine, b: Branch, l: JsonLine, ev: Envelope, ch: ContextChange, type: string): void {
  const st = b.state;
  const branch = ev.branch;
  if (ch.field === 'initialize') st.todoPoints = [];
  const plan =
    ch.field === 'initialize' ? { value: ch.todo, after: ch.todoAfter } : ch.field === 'todo' ? { value: ch.value, after: ch.after } : null;
  if (plan && plan.after !== null) {
    mc.todoValues.set(ev.eventId, plan.value);
    st.todoPoints.push([plan.after, ev.eventId]);
  }
  switch (ch.field) {
    case 'message_boundary':
      st.boundaries.set(ch.messageId, { first: ch.first, last: ch.last });
      mc.record(l, branch, type, `message ${ch.messageId}: groups ${ch.first}..${ch.last}`);
      return;
    case 'initialize': {
      const prev = st.context;
      const c = newContext();
      c.maxTokens = ch.maxTokens;
      c.split = ch.split;
      c.mapReduce = ch.mapReduce;
      c.visibleFrom = ch.visibleFrom;
      c.hidden = new Set(ch.hidden);
      c.masked = new Set(ch.masked);
      c.todo = ch.todo;
      st.context = c;
      mc.record(
        l,
        branch,
        type,
        `context initialized (budget ${ch.maxTokens} tokens${ch.visibleFrom !== null ? `, visible from #${ch.visibleFrom}` : ''})`,
      );
      staging(mc, b, l, ev, prev?.mapReduce ?? null, ch.mapReduce, prev?.split != null, ch.split !== null);
      if (ch.todoLossy)
        mc.out.report(
          'COSH_TODO_SHAPE',
          'info',
          `Line ${l.line}: the plan has a shape cosh no longer reads; like cosh, it is taken as no plan.`,
          [],
          l.line,
        );
      if (ch.todo !== null || b.todoCanon !== null) writeTodo(mc, b, l, ch.todo, ch.todoAfter ?? undefined, false);
      sync(mc, b, l, null);
      return;
    }
    case 'item_upsert':
      upsert(mc, b, l, ev, ch.item);
      return;
    case 'item_remove': {
      const c = ctx(b);
      const before = c.items.length;
      if (c.byId.has(ch.itemId))
        setItems(
          c,
          c.items.filter((it) => it.coshId !== ch.itemId),
        );
      repair(c);
      if (c.items.length === before) mc.record(l, branch, type, `item #${ch.itemId} was not in the context`);
      sync(mc, b, l, null);
      return;
    }
    case 'next_id':
      ctx(b);
      mc.record(l, branch, type, `next item id ${ch.value}`);
      return;
    case 'max_tokens':
      ctx(b).maxTokens = ch.value;
      mc.record(l, branch, type, `context budget ${ch.value} tokens`);
      return;
    case 'overflow_model':
      ctx(b);
      mc.record(l, branch, type, ch.value === null ? 'overflow cleared' : `summarizer overflow stuck for ${ch.value}`);
      return;
    case 'last_tool_set':
      ctx(b);
      mc.record(l, branch, type, ch.value === null ? 'no tool set' : `tools offered: ${ch.value.join(', ')}`);
      return;
    case 'split': {
      const c = ctx(b);
      const had = c.split !== null;
      c.split = ch.value;
      if (ch.value === null || !had) c.splitAppends = 0;
      staging(mc, b, l, ev, c.mapReduce, c.mapReduce, had, ch.value !== null);
      return;
    }
    case 'map_reduce': {
      const c = ctx(b);
      const prev = c.mapReduce;
      c.mapReduce = ch.value;
      staging(mc, b, l, ev, prev, ch.value, c.split !== null, c.split !== null);
      return;
    }
    case 'map_segment_accepted': {
      const c = ctx(b);
      const s = c.mapReduce;
      const seg = s?.segments.find((x) => x.ordinal === ch.ordinal);
      if (!s || !seg || seg.summary !== null) {
        mc.record(l, branch, type, `map ${ch.ordinal}: ignored (no open segment with that ordinal)`);
        return;
      }
      c.mapReduce = { ...s, segments: s.segments.map((x) => (x.ordinal === ch.ordinal ? { ...x, summary: ch.summary } : x)) };
      mapEvent(mc, b, l, ev, ch.ordinal, ch.summary);
      return;
    }
    case 'split_buffer_append': {
      const c = ctx(b);
      if (!c.split) {
        mc.record(l, branch, type, 'ignored: no split staging');
        return;
      }
      c.split = { ...c.split, buffer: c.split.buffer + ch.appended, cursor: ch.cursor };
      mapEvent(mc, b, l, ev, c.splitAppends++, ch.appended);
      return;
    }
    case 'todo':
      ctx(b).todo = ch.value;
      if (ch.lossy)
        mc.out.report(
          'COSH_TODO_SHAPE',
          'info',
          `Line ${l.line}: the plan has a shape cosh no longer reads; like cosh, it is taken as no plan.`,
          [],
          l.line,
        );
      writeTodo(mc, b, l, ch.value, ch.after ?? undefined, true);
      return;
    case 'visible_from':
      ctx(b).visibleFrom = ch.value;
      sync(mc, b, l, null);
      return;
    case 'hidden': {
      const c = ctx(b);
      for (const id of ch.ids) {
        if (ch.on) c.hidden.add(id);
        else c.hidden.delete(id);
      }
      sync(mc, b, l, null);
      return;
    }
    case 'masked': {
      const c = ctx(b);
      for (const id of ch.ids) {
        if (ch.on) c.masked.add(id);
        else c.masked.delete(id);
      }
      sync(mc, b, l, null);
      return;
    }
  }
}
