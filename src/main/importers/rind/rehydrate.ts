import type { Block } from '../../../shared/model/content';
import type { EventBody } from '../../../shared/model/event';
import { isObj } from '../dsh/json';
import {
  checkpointText,
  isCompactBoundary,
  isCompactionOf,
  key,
  readCompactionRecord,
  readToolRecord,
  toolCallsMeta,
  toolResultBlock,
} from './records';

/**
 * The event with its full text, re-read from its source line with the mappers the import used.
 * Items of system, user and assistant messages are rebuilt from their message line (text and
 * reasoning; a tool call's arguments from the message's own `meta.tool_calls`, which Rind writes
 * from the same parsed call as the tool record). A tool result is rebuilt from its record in
 * tool_calls.jsonl, the continuation and handoff items and the llm_inline summary from their
 * record in compactions.jsonl: the import locates them there (./session.ts). Located at their
 * message line instead (no text recorded, or companions read beside a lone messages.jsonl),
 * they come back as they are. Null when the line no longer yields the event.
 */
export function rehydrateRind(event: EventBody, line: Record<string, unknown>): EventBody | null {
  switch (event.kind) {
    case 'item': {
      const item = event.item;
      const d = item.derivation;
      if (d?.kind === 'checkpoint') {
        if (isCompactBoundary(line)) return event;
        const rec = readCompactionRecord(line);
        if (!rec || rec.handoff === null || !isCompactionOf(d.compactionId, rec.id) || d.part === 'summary') return null;
        return { ...event, item: { ...item, blocks: [{ type: 'text', text: checkpointText(rec, d.part) }] } };
      }
      if (item.role === 'tool') {
        if (line.role === 'tool' || line.role === 'assistant') return event;
        const rec = readToolRecord(line);
        const b = item.blocks[0];
        if (!rec || rec.modelContent === null || b?.type !== 'tool_result' || b.callId !== rec.id) return null;
        return { ...event, item: { ...item, blocks: [toolResultBlock(rec.id, rec.modelContent)] } };
      }
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
    case 'compaction/summary': {
      if (isCompactBoundary(line)) return event;
      const rec = readCompactionRecord(line);
      if (!rec || rec.handoff === null || !isCompactionOf(event.id, rec.id)) return null;
      return { ...event, summary: [{ type: 'text', text: checkpointText(rec, 'handoff') }] };
    }
    case 'record':
      if (event.type === 'tool_call') return readToolRecord(line) !== null || line.id === undefined ? event : null;
      if (event.type === 'compaction') return readCompactionRecord(line) !== null || line.id === undefined ? event : null;
      return event;
    default:
      return event;
  }
}
