import type { Block } from '../../../shared/model/content';
import type { Item, Role } from '../../../shared/model/item';
import type { CoshItem, TodoValue } from './parse';

/**
 * cosh context items as canonical items, one message each as `build_messages` renders them:
 * User → user text; Assistant and Closure → assistant text; ToolCall → an assistant message
 * with one native tool call, preceded by the Claude thinking blocks it replays; ToolResult → a
 * tool message; Compaction → an assistant message (the checkpoint); Error and UserCommand are
 * display-only and never sent.
 */

const ROLE: Record<CoshItem['kind'], Role> = {
  User: 'user',
  Assistant: 'assistant',
  ToolCall: 'assistant',
  ToolResult: 'tool',
  Closure: 'assistant',
  Compaction: 'assistant',
  Error: 'assistant',
  UserCommand: 'user',
};

const ORIGIN: Partial<Record<CoshItem['kind'], string>> = {
  Closure: 'Closure',
  Compaction: 'Compaction',
  Error: 'Error',
  UserCommand: 'UserCommand',
};

export function itemBlocks(it: CoshItem): Block[] {
  switch (it.kind) {
    case 'ToolCall': {
      const blocks: Block[] = (it.thinking ?? []).map((t): Block => ({ type: 'reasoning', text: t.thinking }));
      blocks.push({ type: 'tool_call', id: it.callId ?? '', name: it.name ?? '', input: it.text });
      return blocks;
    }
    case 'ToolResult':
      return [{ type: 'tool_result', callId: it.callId ?? '', content: [{ type: 'text', text: it.text }] }];
    default:
      return [{ type: 'text', text: it.text }];
  }
}

export function canonicalItem(it: CoshItem, id: string): Item {
  const item: Item = { id, role: ROLE[it.kind], blocks: itemBlocks(it) };
  const origin = ORIGIN[it.kind];
  if (origin !== undefined) item.origin = origin;
  return item;
}

/**
 * The reference cosh renders for a masked result (mod.rs @175f4e8e, `masked_tool_result`), as the
 * tool message it replaces.
 */
export function maskReference(coshId: number, callId: string): Block[] {
  return [
    {
      type: 'tool_result',
      callId,
      content: [
        {
          type: 'text',
          text: `[Historical tool result masked from the active view; source context item #${coshId} remains in the immutable session history.]`,
        },
      ],
    },
  ];
}

/** A cosh plan as canonical todos: every task of every group, in order; statuses as cosh writes them. */
export function todosOf(v: TodoValue): { content: string; status: string }[] {
  if (!v) return [];
  return v.flatMap((g) => g.items.map((i) => ({ content: i.description, status: i.status })));
}
