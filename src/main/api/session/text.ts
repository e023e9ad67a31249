import type { LongText } from '../../../shared/api/contract';
import { blockChars, blockIsElided, type Block } from '../../../shared/model/content';
import type { LogEvent } from '../../../shared/model/event';
import type { LoadedSession } from '../../session/types';

/** Most characters of one text sent to the renderer: a summary or a tool output is rarely more, a runaway one can be 100 MB. */
export const TEXT_CAP = 200_000;

/** Blocks as plain text (the renderer shows it as text, never as markup). */
export function blocksText(blocks: readonly Block[]): string {
  return blocks.map(blockText).join('\n\n');
}

function blockText(b: Block): string {
  switch (b.type) {
    case 'text':
      return b.text;
    case 'reasoning':
      return b.redacted ? '[reasoning: redacted]' : `[reasoning]\n${b.text}`;
    case 'tool_call':
      return `[call ${b.name} ${b.id}]\n${b.input}`;
    case 'tool_result':
      return `[result ${b.callId}${b.isError ? ', error' : ''}]\n${b.content.map((c) => blockText(c)).join('\n')}`;
    case 'image':
      return `[image${b.mediaType ? ` ${b.mediaType}` : ''}${b.bytes !== undefined ? `, ${b.bytes} bytes` : ''}]`;
    case 'opaque':
      return `[opaque: ${b.label}${b.chars !== undefined ? `, ${b.chars} characters` : ''}]`;
  }
}

export function longText(text: string, cap = TEXT_CAP): LongText {
  return { text: text.length > cap ? text.slice(0, cap) : text, chars: text.length, truncated: text.length > cap };
}

export function charsOf(blocks: readonly Block[] | null): number {
  return blocks ? blocks.reduce((n, b) => n + blockChars(b), 0) : 0;
}

export function elidedOf(blocks: readonly Block[] | null): number {
  let n = 0;
  for (const b of blocks ?? []) {
    if (!blockIsElided(b)) continue;
    if (b.type === 'tool_result') n += elidedOf(b.content);
    else if (b.type === 'text' || b.type === 'reasoning' || b.type === 'tool_call') n += b.elided ?? 0;
  }
  return n;
}

/** Control characters would break a one-line preview; they become spaces. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]+/g;

/** A one-line preview of blocks, for lists. */
export function preview(blocks: readonly Block[] | null, max = 160): string {
  if (!blocks) return '';
  const flat = blocksText(blocks).replace(CONTROL, ' ').replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The event with its full text; the in-memory (elided) one when the file cannot be re-read. */
export async function hydrated(session: LoadedSession, seq: number): Promise<LogEvent> {
  try {
    return await session.hydrate(seq);
  } catch (err: unknown) {
    const e = seq >= 0 ? session.events.at(seq) : undefined;
    if (!e) throw err;
    return e;
  }
}
