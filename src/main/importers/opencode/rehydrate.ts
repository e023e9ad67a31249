import type { EventBody } from '../../../shared/model/event';
import { obj } from '../json';
import { assistantBlocks, toolCall, toolResult, userBlocks } from './parts';

/** The event made from an OpenCode part's line, with its texts whole again (null: the line no longer gives it). */
export function rehydrateOpenCode(event: EventBody, line: Record<string, unknown>): EventBody | null {
  const part = line.opencode === 'part' ? obj(line.part) : undefined;
  if (event.kind === 'compaction/summary') {
    if (!part || part.type !== 'text' || typeof part.text !== 'string') return null;
    return { ...event, summary: [{ type: 'text', text: part.text }] };
  }
  if (event.kind !== 'item') return event;
  if (!part) return event;
  const item = event.item;
  let blocks;
  if (item.role === 'tool') blocks = [toolResult(part)];
  else if (item.role === 'user') blocks = item.derivation ? item.blocks : userBlocks(part);
  else if (item.id.endsWith(':summary'))
    blocks = part.type === 'text' && typeof part.text === 'string' ? [{ type: 'text' as const, text: part.text }] : null;
  else if (item.blocks[0]?.type === 'tool_call') blocks = [toolCall(part)];
  else blocks = assistantBlocks(part);
  return blocks ? { ...event, item: { ...item, blocks } } : null;
}
