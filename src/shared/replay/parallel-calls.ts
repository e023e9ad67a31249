import type { ViewItem } from '../model/view';

/*
 * Which parallel tool calls of a request's items a harness that reloads a conversation by walking
 * its log's parent links back from the leaf may leave out: parallel results are written one record
 * each, each hanging off the response that made its calls, and the next turn hangs off the result
 * written last, so the walk reaches only that one. Whether a harness does so, and whether it
 * reloaded at all, is the envelope's to say (HeaderEvent.reloadMayDrop); this only finds the calls.
 */

const callsOf = (it: ViewItem): string[] => (it.blocks ?? []).flatMap((b) => (b.type === 'tool_call' ? [b.id] : []));
const answersOf = (it: ViewItem): string[] => (it.blocks ?? []).flatMap((b) => (b.type === 'tool_result' ? [b.callId] : []));

/**
 * The ids of the parallel calls a reload leaves out of a request's items: of each response with
 * several calls answered in several records, the calls the last of those records does not answer —
 * once a user record without tool results (the next turn) follows them. One pass over the items
 * (a view can hold many thousands), then one look at each call.
 */
export function parallelCallsAtRisk(items: readonly ViewItem[]): Set<string> {
  // Each call id → the positions of the records answering it, ascending.
  const answering = new Map<string, number[]>();
  const answers: (string[] | undefined)[] = new Array<string[] | undefined>(items.length);
  // The position of the last user record without tool results (the start of a later turn).
  let lastTurn = -1;
  const several: number[] = [];
  items.forEach((it, k) => {
    const ids = answersOf(it);
    answers[k] = ids;
    for (const id of ids) {
      const at = answering.get(id);
      if (!at) answering.set(id, [k]);
      else if (at.at(-1) !== k) at.push(k);
    }
    if (it.role === 'user' && ids.length === 0) lastTurn = k;
    if (it.role === 'assistant' && new Set(callsOf(it)).size >= 2) several.push(k);
  });
  const out = new Set<string>();
  for (const i of several) {
    const calls = new Set(callsOf(items[i] as ViewItem));
    const records = new Set<number>();
    for (const id of calls) for (const k of answering.get(id) ?? []) if (k > i) records.add(k);
    if (records.size < 2) continue;
    const last = Math.max(...records);
    if (lastTurn <= last) continue;
    const kept = new Set(answers[last]);
    for (const id of calls) if (!kept.has(id)) out.add(id);
  }
  return out;
}
