import { COMPRESSION_ACK, isContextText, type TargetItem } from './history';
import { type GeminiMessage, textOf } from './records';

/**
 * What a `{"$set": {"messages": […]}}` is. From v0.44 Gemini CLI writes the whole list back
 * whenever its history changes under it (`updateMessagesFromHistory`, chatRecordingService.ts): after a
 * compression, after masking tool output, when a new chat syncs its opening context, when a failed
 * or cancelled turn is rolled back, and when the history is re-expressed as raw parts. The record
 * does not say which; the evidence, in this order:
 * - compression: the list holds a user message whose text carries `<state_snapshot>` followed by
 *   a gemini message saying exactly the acknowledgement chatCompressionService.ts writes ("Got it.
 *   Thanks for the additional context!"), and that pair was not in the list before (a compression
 *   carried forward is not a new one). What was before and is gone was replaced; what stays is the
 *   kept tail; a kept tool output rewritten with `<tool_output_masked>` was masked.
 * - masking: nothing is added or removed, and a rewritten tool output now carries
 *   `<tool_output_masked>` (toolOutputMaskingService.ts's MASKING_INDICATOR_TAG); other items may
 *   be rewritten with it (the list re-expressed as raw parts) and are replaced.
 * - truncation: nothing is added or removed, and a rewritten tool output now opens with
 *   "Output too large. Showing first …" (fileUtils.ts `formatTruncatedToolOutput`): the
 *   function-response budget applied alone, which the compression service does instead of
 *   summarising once a compression has failed in the chat (CONTENT_TRUNCATED).
 * - opening: nothing is removed or rewritten, and what is added is only the CLI's context turn
 *   (`<session_context>` / `<hook_context>`): a new chat's first sync, no compaction.
 * - rollback: nothing is added or rewritten, and the latest items are gone (a failed or cancelled
 *   turn undone, geminiChat.ts).
 * - rewrite: anything else (messages re-expressed as raw `functionCall` / `functionResponse` /
 *   `thoughtSignature` parts): no compaction, the changed items are replaced as they now read.
 */
export type SetKind = 'compression' | 'masking' | 'truncation' | 'opening' | 'rollback' | 'rewrite' | 'same';

export interface SetEvidence {
  readonly kind: SetKind;
  /** The summary and acknowledgement messages of a compression. */
  readonly summary?: GeminiMessage;
  readonly ack?: GeminiMessage;
}

export const MASKED_TAG = '<tool_output_masked';
export const TRUNCATED_PREFIX = 'Output too large. Showing first ';
export const SNAPSHOT_TAG = '<state_snapshot>';

function itemText(t: TargetItem): string {
  return t.item.blocks
    .map((b) =>
      b.type === 'text' ? b.text : b.type === 'tool_result' ? b.content.map((c) => (c.type === 'text' ? c.text : '')).join('') : '',
    )
    .join('');
}

export function isMaskedOutput(t: TargetItem): boolean {
  return t.item.role === 'tool' && itemText(t).includes(MASKED_TAG);
}

export function isTruncatedOutput(t: TargetItem): boolean {
  return t.item.role === 'tool' && itemText(t).startsWith(TRUNCATED_PREFIX);
}

/** The head, tail and omitted characters a truncated output states of itself, when it does. */
export function truncationOf(t: TargetItem): { head: number; tail: number; omitted: number } | null {
  const text = itemText(t);
  const m = /^Output too large\. Showing first ([\d,.\s]+) and last ([\d,.\s]+) characters\./.exec(text);
  const o = /\.\.\. \[([\d,.\s]+) characters omitted\] \.\.\./.exec(text);
  const n = (s: string | undefined): number => Number((s ?? '').replace(/[^\d]/g, ''));
  return m && o ? { head: n(m[1]), tail: n(m[2]), omitted: n(o[1]) } : null;
}

/** The compression pair of a list: the last snapshot message directly followed by the acknowledgement. */
export function compressionPair(list: readonly GeminiMessage[]): { summary: GeminiMessage; ack: GeminiMessage } | null {
  for (let i = list.length - 2; i >= 0; i--) {
    const s = list[i] as GeminiMessage;
    const a = list[i + 1] as GeminiMessage;
    if (
      s.type === 'user' &&
      textOf(s.value.content).includes(SNAPSHOT_TAG) &&
      a.type === 'gemini' &&
      textOf(a.value.content).trim() === COMPRESSION_ACK
    )
      return { summary: s, ack: a };
  }
  return null;
}

/**
 * `before`: the items on the surface now, by key and what they say (`fp`); `wasListed`: whether a
 * message id was in the list before this record (an appended summary message is not yet "before":
 * the recorder appends the new pair just before it writes the list).
 */
export function classifySet(
  list: readonly GeminiMessage[],
  targets: readonly TargetItem[],
  before: ReadonlyMap<string, string>,
  wasCompressed: (summaryId: string) => boolean,
): SetEvidence {
  const pair = compressionPair(list);
  if (pair && !wasCompressed(pair.summary.id)) return { kind: 'compression', ...pair };
  const keys = new Set(targets.filter((t) => !t.log).map((t) => t.key));
  const added = targets.filter((t) => !t.log && !before.has(t.key));
  const removed = [...before.keys()].filter((k) => !keys.has(k));
  const changed = targets.filter((t) => !t.log && before.has(t.key) && before.get(t.key) !== t.fp);
  if (added.length === 0 && removed.length === 0 && changed.length === 0) return { kind: 'same' };
  // Masking may come with the rest of the list re-expressed as raw parts: one masked output suffices.
  if (added.length === 0 && removed.length === 0 && changed.some(isMaskedOutput)) return { kind: 'masking' };
  if (added.length === 0 && removed.length === 0 && changed.some(isTruncatedOutput)) return { kind: 'truncation' };
  if (removed.length === 0 && changed.length === 0 && added.every((t) => t.item.role === 'user' && isContextText(itemText(t))))
    return { kind: 'opening' };
  if (added.length === 0 && changed.length === 0) return { kind: 'rollback' };
  return { kind: 'rewrite' };
}
