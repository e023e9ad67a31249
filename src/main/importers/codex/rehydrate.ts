import type { EventBody } from '../../../shared/model/event';
import { mapResponseItem } from './blocks';
import { sentInstructions, summaryText } from './compaction';
import { BRIDGE_ORIGIN, bridgeSummary } from './history-bridge';
import { isObj, str } from './json';
import { classify } from './records';

/**
 * The event with its full text, re-mapped from its source line with the same mappers the importer
 * used. What the import derived from other lines (ids, ops, derivations, sources, meta, origin) is
 * kept from the in-memory event. A legacy rebuild's copies are emitted from the line their text is
 * on (a user message Codex cut too: the copy holds the whole message, masked); events without text
 * come back unchanged. Null when the line no longer yields the event.
 */
export function rehydrateCodex(event: EventBody, line: Record<string, unknown>): EventBody | null {
  const rec = classify(line, line.type === undefined && line.payload === undefined);
  const p = isObj(rec.payload) ? rec.payload : undefined;
  switch (event.kind) {
    case 'item': {
      if (!p) return null;
      if (rec.type === 'response_item') {
        const m = mapResponseItem(p, event.item.id);
        return m.ok ? { ...event, item: { ...event.item, blocks: m.item.blocks } } : null;
      }
      if (rec.type !== 'compacted') return null;
      const index = /\.r(\d+)$/.exec(event.item.id)?.[1];
      if (index === undefined) return null;
      if (Array.isArray(p.replacement_history)) {
        const raw: unknown = p.replacement_history[Number(index)];
        if (!isObj(raw)) return null;
        const m = mapResponseItem(raw, event.item.id);
        return m.ok ? { ...event, item: { ...event.item, blocks: m.item.blocks } } : null;
      }
      // A legacy rebuild: only the summary's text is on this line (in a history bridge's piece, or a copy of one).
      if (event.item.origin === BRIDGE_ORIGIN)
        return { ...event, item: { ...event.item, blocks: [{ type: 'text', text: bridgeSummary(str(p.message) ?? '') }] } };
      if (event.item.derivation?.kind === 'checkpoint') {
        return { ...event, item: { ...event.item, blocks: [{ type: 'text', text: summaryText(str(p.message) ?? '') }] } };
      }
      return event;
    }
    case 'header': {
      if (!Array.isArray(event.system)) return event;
      if (rec.type !== 'session_meta' || !p) return null;
      const text = sentInstructions(p);
      return text === undefined ? null : { ...event, system: [{ type: 'text', text }] };
    }
    case 'compaction/summary': {
      if (rec.type !== 'compacted' || !p) return null;
      const first = event.summary[0];
      if (first?.type !== 'text') return event;
      return { ...event, summary: [{ type: 'text', text: str(p.message) ?? '' }] };
    }
    default:
      return event;
  }
}
