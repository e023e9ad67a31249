import type { EventBody } from '../../../shared/model/event';
import { itemBlocks } from './items';
import { parseEvent } from './parse';

/**
 * The event with its full text, re-read from its line. Items, checkpoint summaries and map
 * summaries are re-mapped from the line's delta; derived parts (ids, ops, derivations, sources)
 * stay as imported. Null when the line no longer yields the event.
 */
export function rehydrateCosh(event: EventBody, line: Record<string, unknown>): EventBody | null {
  const parsed = parseEvent(line);
  if (!parsed.ok) return event.kind === 'record' || event.kind === 'unknown' || event.kind === 'session' ? event : null;
  const d = parsed.event.delta;
  const change = d.type === 'context' ? d.change : null;
  switch (event.kind) {
    case 'item': {
      if (change?.field !== 'item_upsert') return null;
      return { ...event, item: { ...event.item, blocks: itemBlocks(change.item) } };
    }
    case 'compaction/summary':
      if (change?.field !== 'item_upsert' || change.item.kind !== 'Compaction') return null;
      return { ...event, summary: [{ type: 'text', text: change.item.text }] };
    case 'mapreduce/map': {
      let text: string | null = null;
      if (change?.field === 'map_segment_accepted') text = change.summary;
      else if (change?.field === 'split_buffer_append') text = change.appended;
      else if (change?.field === 'map_reduce' || change?.field === 'initialize') {
        const s = change.field === 'map_reduce' ? change.value : change.mapReduce;
        text = s?.segments.find((x) => x.ordinal === event.ordinal)?.summary ?? null;
      }
      return text === null ? null : { ...event, summary: [{ type: 'text', text }] };
    }
    default:
      return event;
  }
}
