import type { Block } from '../../../shared/model/content';
import type { EventBody } from '../../../shared/model/event';
import { isObj } from '../dsh/json';
import { isCompactBoundary, key, readCompactionRecord, readToolRecord, toolCallsMeta } from './records';

/**
 * The event with its full text, re-read from its source line. Items of system, user and
 * assistant messages are rebuilt from their message line (text and reasoning; a tool call's
 * arguments from the message's own `meta.tool_calls`, which Rind writes from the same parsed call
 * as the tool record). Tool results and handoff pairs are joined from other files, which their
 * line (a `tool` message, a boundary marker) does not carry: they come back as they are, still
 * elided when long (ImportSink can only locate an event in the file being read). Null when the
 * line no longer yields the event.
 */
export function rehydrateRind(event: EventBody, line: Record<string, unknown>): EventBody | null {
  switch (event.kind) {
    case 'item': {
      const item = event.item;
      if (item.derivation?.kind === 'checkpoint') return isCompactBoundary(line) ? event : null;
      if (item.role === 'tool') return line.role === 'tool' || line.role === 'assistant' ? event : null;
      if (line.role !== item.role) return null;
      const content = typeof line.content === 'string' ? line.content : null;
      const reasoning = typeof line.reasoning_content === 'string' ? line.reasoning_content : null;
      const metaCalls = toolCallsMeta(line) ?? [];
      const args = new Map<string, string>();
      for (const tc of metaCalls) {
        if (!isObj(tc)) continue;
        const id = key(tc.id);
        if (id !== null && typeof tc.raw_args === 'string') args.set(id, tc.raw_args);
      }
      const blocks: Block[] = item.blocks.map((b): Block => {
        switch (b.type) {
          case 'text':
            return content !== null && b.elided !== undefined ? { type: 'text', text: content } : b;
          case 'reasoning':
            return reasoning !== null && b.elided !== undefined ? { type: 'reasoning', text: reasoning } : b;
          case 'tool_call': {
            const full = args.get(b.id);
            return full !== undefined && b.elided !== undefined ? { type: 'tool_call', id: b.id, name: b.name, input: full } : b;
          }
          default:
            return b;
        }
      });
      return { ...event, item: { ...item, blocks } };
    }
    case 'compaction/summary':
      return isCompactBoundary(line) ? event : null;
    case 'record':
      if (event.type === 'tool_call') return readToolRecord(line) !== null || line.id === undefined ? event : null;
      if (event.type === 'compaction') return readCompactionRecord(line) !== null || line.id === undefined ? event : null;
      return event;
    default:
      return event;
  }
}
