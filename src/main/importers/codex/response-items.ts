import { mapResponseItem } from './blocks';
import { closeCall, openCall } from './calls';
import { APPEND, LOG, place } from './history';
import { isObj, str } from './json';
import type { CodexState } from './state';

/**
 * `response_item`: one item of the model history (id `L<line>`), mapped by ./blocks.ts. An output
 * item opens a model call (or a new one, after inputs; where usage is written first, after inputs
 * and a new round); an input marks the open call as answered.
 */
export function responseItem(s: CodexState, p: unknown): void {
  if (!isObj(p)) {
    s.bad('response_item', 'response_item has no payload object');
    return;
  }
  const id = `L${s.cur.line}`;
  // One array for every line's notes: most lines have none, and nothing is allocated for them.
  const notes = s.scratch;
  notes.length = 0;
  const m = mapResponseItem(p, id, notes);
  if (!m.ok) {
    if (m.unknownType !== undefined) s.unknownEvent(`response_item/${m.unknownType}`);
    else s.bad(`response_item/${str(p.type) ?? '?'}`, m.problem);
    return;
  }
  s.notes(notes);
  if (m.item.flow === 'output') {
    // Where usage comes first, Codex writes a round's items in one batch after it, each call
    // followed by its output (parallel calls interleave): only a new round ends the batch.
    const answered = s.usageOrder === 'before-output' ? s.call.roundAfterInput : s.call.sawInput;
    if (answered) closeCall(s);
    if (!s.call.isOpen) openCall(s);
  } else if (m.item.flow === 'input') {
    s.call.input();
  }
  const info = place(s, id, m.item, { op: m.item.flow === 'log' ? LOG : APPEND });
  if (info && s.contextBlock) s.contextIds.push(info);
}
