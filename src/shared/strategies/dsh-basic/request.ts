import type { Block } from '../../model/content';
import { blocksText } from '../common/render';
import type { SourceItem, SummaryMessage, SummaryRequest } from '../types';

/*
 * DeepSeek Harness: the default summarizer "derives the system message from surface position 0,
 * follows it with the shadowed-region messages ... and appends the compaction instruction. The
 * system head stays outside replacement; an empty head emits no wire message." Replaying the old
 * prefix unchanged is what lets a provider reuse its cache; only the final instruction is new.
 * The call keeps the connector's output configuration (maxOutput null): DSH sets only purpose.
 */

export const DSH_INSTRUCTION = [
  'Compact the conversation above into a checkpoint that will replace it.',
  'Keep the task, user requirements and constraints, decisions, file paths, identifiers, commands,',
  'errors and their resolution, completed and open work, and the next step. Reply with the summary text only.',
].join(' ');

export const checkpointText = (summary: string): string => `<compacted-summary>\n${summary}\n</compacted-summary>`;

/** A surface item as a wire message: tool results go back as user turns, later system updates are labelled. */
function message(item: SourceItem): SummaryMessage {
  const text = blocksText(item.blocks);
  if (item.role === 'assistant') return { role: 'assistant', text };
  if (item.role === 'system') return { role: 'user', text: `[system]\n${text}` };
  return { role: 'user', text };
}

export function dshRequest(
  system: readonly Block[] | null,
  surface: readonly SourceItem[],
  head: number,
  from: number,
  to: number,
): SummaryRequest {
  const headBlocks = head > 0 ? (surface[0] as SourceItem).blocks : system;
  const headText = headBlocks && headBlocks.length > 0 ? blocksText(headBlocks) : '';
  const messages: SummaryMessage[] = surface.slice(from, to).map(message);
  messages.push({ role: 'user', text: DSH_INSTRUCTION });
  return {
    stage: 'one-shot',
    label: `checkpoint #${from}-#${to - 1}`,
    system: headText === '' ? null : headText,
    messages,
    maxOutput: null,
  };
}
