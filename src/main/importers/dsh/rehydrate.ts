import type { EventBody } from '../../../shared/model/event';
import { mapBlocks, mapSystem, mapTools } from './blocks';
import { decodeLine } from './decode';
import { surfaceBlocks } from './items';
import { isObj } from './json';
import { SURFACE_TYPES } from './known-types';

/**
 * The event with its full blocks, re-mapped from its source line with the same block mappers the
 * importer used. Everything the importer derived from other lines (item ids, surface ops,
 * sources, derivations, request ids) is kept from the in-memory event. Events from a packed chunk
 * row carry no blocks and come back unchanged. Null when the line no longer yields the event.
 */
export function rehydrateDsh(event: EventBody, line: Record<string, unknown>): EventBody | null {
  const d = decodeLine(line);
  if (d.kind === 'header') return event.kind === 'session' || event.kind === 'record' ? event : null;
  if (d.kind === 'stream' || d.packedRow !== undefined) return event;
  const ev = d.events[0];
  if (!ev) return null;
  const data = isObj(ev.data) ? ev.data : undefined;
  switch (event.kind) {
    case 'item': {
      if (!SURFACE_TYPES.has(ev.type)) return null;
      const blocks = surfaceBlocks(ev);
      return blocks === undefined ? null : { ...event, item: { ...event.item, blocks } };
    }
    case 'header': {
      if (ev.type === 'request/context') return event;
      const h = ev.type === 'request/header' && data && isObj(data.header) ? data.header : undefined;
      if (!h) return null;
      const out = { ...event };
      if (Array.isArray(event.system)) {
        const system = mapSystem(h.system);
        if (!Array.isArray(system)) return null;
        out.system = system;
      }
      if (Array.isArray(event.tools)) {
        const tools = mapTools(h.tools);
        if (tools === null) return null;
        out.tools = tools;
      }
      return out;
    }
    case 'compaction/summary': {
      const summary = ev.type === 'compaction/summary' && data ? mapBlocks(data.summary) : undefined;
      return summary === undefined ? null : { ...event, summary };
    }
    case 'record':
    case 'unknown':
      return event.type === ev.type || (event.type === '(no type)' && ev.type === '') ? event : null;
    default:
      // request, response, compaction/*, todo, lifecycle: no elided text.
      return event;
  }
}
