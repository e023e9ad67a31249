import type { EventBody } from '../../../shared/model/event';
import { attachmentBlocks, mapContent, mapSystem, mapTools } from './blocks';
import { obj } from './json';

/**
 * The event with its full text, re-mapped from its source line with the same block mappers the
 * importer used. Everything the importer derived from other lines (ids, ops, derivations,
 * branches, sources) is kept from the in-memory event. Null when the line no longer yields it.
 */
export function rehydrateClaudeCode(event: EventBody, line: Record<string, unknown>): EventBody | null {
  switch (event.kind) {
    case 'item': {
      const type = line.type;
      let blocks;
      if (type === 'user' || type === 'assistant' || type === 'api-request-blob') blocks = mapContent(obj(line.message)?.content);
      else if (type === 'attachment') blocks = attachmentBlocks(line);
      if (!blocks) return null;
      if (blocks.length !== event.item.blocks.length) return null;
      return { ...event, item: { ...event.item, blocks } };
    }
    case 'header': {
      if (line.type !== 'api-request-shape') return event;
      const shape = obj(line.shape);
      const out = { ...event };
      if (event.system) {
        const system = mapSystem(shape?.system);
        if (!system) return null;
        out.system = system;
      }
      if (event.tools) {
        const tools = mapTools(shape?.tools);
        if (!tools) return null;
        out.tools = tools;
      }
      return out;
    }
    default:
      // requests, responses, records, compaction brackets, forks, drops, masks: no elided text.
      return event;
  }
}
