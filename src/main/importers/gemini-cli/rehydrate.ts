import type { EventBody } from '../../../shared/model/event';
import { isObj } from '../json';
import { RESPONSE_SUFFIX, isResponseTurn, itemsOf, itemsOfList } from './history';
import { type GeminiMessage, listMessages, readMessage, setMessages, textOf } from './records';

/**
 * The event with its full text, re-read from its line: a message record, a `$set` with its list, or
 * a metadata record with a whole legacy list. The item is made again from its message with the
 * mapping the import used (./history.ts) and its key (the item id without a `~n` version); ids,
 * ops, derivations and sources stay as imported. Null when the line no longer yields the event.
 */

function messagesOfLine(line: Record<string, unknown>): GeminiMessage[] {
  const list = setMessages(line) ?? (Array.isArray(line.messages) ? line.messages : null);
  if (list === null) {
    const m = readMessage(line);
    return m ? [m] : [];
  }
  return listMessages(list);
}

function isList(line: Record<string, unknown>): boolean {
  return setMessages(line) !== null || Array.isArray(line.messages);
}

export function rehydrateGeminiCli(event: EventBody, line: Record<string, unknown>): EventBody | null {
  switch (event.kind) {
    case 'item': {
      const key = event.item.id.replace(/~\d+$/, '');
      const msgs = messagesOfLine(line);
      // A lone message line makes its own items; a list makes them as a whole (./history.ts).
      const items = msgs.length === 1 && !isList(line) ? itemsOf(msgs[0] as GeminiMessage, () => false) : itemsOfList(msgs);
      // A lone user message of function responses may stand for a gemini message's results
      // (`<id>_response`, ./file.ts `answering`).
      const lone = msgs.length === 1 && !isList(line) ? (msgs[0] as GeminiMessage) : null;
      const t =
        items.find((x) => x.key === key) ??
        (lone && isResponseTurn(lone) && key.endsWith(RESPONSE_SUFFIX) ? items.find((x) => x.msgId === lone.id) : undefined);
      return t ? { ...event, item: { ...event.item, blocks: t.item.blocks } } : null;
    }
    case 'compaction/summary': {
      const msgs = messagesOfLine(line);
      const covers = event.summary;
      const s = msgs.find((m) => m.type === 'user' && textOf(m.value.content).includes('<state_snapshot>') && covers.length > 0);
      return s ? { ...event, summary: [{ type: 'text', text: textOf(s.value.content) }] } : null;
    }
    default:
      return isObj(line) ? event : null;
  }
}
