import type { Block } from '../shared/model/content';

/** Plain-text renderings of content blocks. The result is shown as text (React escapes it), never as markup. */

// Control characters in session text would break the one-line layout; they are shown as spaces.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]+/g;
const flat = (s: string): string => s.replace(CONTROL, ' ').replace(/\s+/g, ' ').trim();

export function blockText(b: Block): string {
  switch (b.type) {
    case 'text':
      return b.text;
    case 'reasoning':
      return b.redacted ? '[reasoning: redacted]' : `[reasoning] ${b.text}`;
    case 'tool_call':
      return `[call ${b.name} ${b.id}] ${b.input}`;
    case 'tool_result':
      return `[result ${b.callId}${b.isError ? ', error' : ''}] ${b.content.map(blockText).join(' ')}`;
    case 'image':
      return `[image${b.mediaType ? ` ${b.mediaType}` : ''}${b.bytes !== undefined ? `, ${b.bytes} bytes` : ''}]`;
    case 'opaque':
      return `[opaque: ${b.label}${b.chars !== undefined ? `, ${b.chars} chars` : ''}]`;
  }
}

/** Characters left out of memory (re-read with "full text"). */
export function elidedChars(b: Block): number {
  switch (b.type) {
    case 'text':
    case 'reasoning':
    case 'tool_call':
      return b.elided ?? 0;
    case 'tool_result':
      return b.content.reduce((n, c) => n + elidedChars(c as Block), 0);
    default:
      return 0;
  }
}

export function blocksPreview(blocks: readonly Block[], max = 400): { text: string; elided: number } {
  const text = flat(blocks.map(blockText).join(' | '));
  const elided = blocks.reduce((n, b) => n + elidedChars(b), 0);
  return { text: text.length > max ? `${text.slice(0, max - 1)}…` : text, elided };
}

export function blocksFull(blocks: readonly Block[]): string {
  return blocks.map(blockText).join('\n\n');
}
