import type { Envelope } from './parse';

/**
 * cosh saves state diffs at throttled save points: within one save the log holds the deltas in
 * `diff_context`'s output order, one event id after the other. `rank` gives that order, so the
 * machine can tell where one save ends.
 */

/** Rank of a delta in `diff_context`'s output order; null for deltas written on their own. */
export function rank(ev: Envelope): number | null {
  const d = ev.delta;
  switch (d.type) {
    case 'metadata':
      return d.change.field === 'title' ? 0 : 1;
    case 'message':
      return 2;
    case 'context': {
      const c = d.change;
      switch (c.field) {
        case 'initialize':
          return 3;
        case 'item_upsert':
          return 4;
        case 'item_remove':
          return 5;
        case 'todo':
          return 6;
        case 'next_id':
          return 7;
        case 'max_tokens':
          return 8;
        case 'overflow_model':
          return 9;
        case 'split':
        case 'split_buffer_append':
          return 10;
        case 'map_reduce':
        case 'map_segment_accepted':
          return 11;
        case 'visible_from':
          return 12;
        case 'hidden':
          return c.on ? 13 : 14;
        case 'masked':
          return c.on ? 15 : 16;
        case 'last_tool_set':
          return 17;
        case 'message_boundary':
          return 18;
      }
      return null;
    }
    default:
      return null;
  }
}
export const REPEATABLE: ReadonlySet<number> = new Set([2, 4, 5, 18]);
