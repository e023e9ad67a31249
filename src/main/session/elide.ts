import type { Block, LeafBlock } from '../../shared/model/content';
import type { EventBody } from '../../shared/model/event';
import { copyWith } from './copy';

/**
 * Long texts are not kept in memory: a block keeps a preview and the number of characters left
 * out, and the full text is re-read from the source line when someone asks for it. This is what
 * lets a 1 GB session open in less memory than its size (docs/performance.md).
 */
export const ELIDE_OVER = 384;
export const PREVIEW_CHARS = 160;

function cut(text: string): { text: string; elided: number } | null {
  if (text.length <= ELIDE_OVER) return null;
  // Do not split a surrogate pair: the preview must stay valid text.
  let end = PREVIEW_CHARS;
  const c = text.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  // A copy, not a slice: V8 keeps a slice pointing into its whole parent string, which would keep
  // every elided text in memory after all (measured: 2.5x the file size instead of 1.1x on 1 GB).
  return { text: structuredClone(text.slice(0, end)), elided: text.length - end };
}

function elideLeaf(b: LeafBlock): LeafBlock {
  if (b.type === 'text' || b.type === 'reasoning') {
    const c = cut(b.text);
    return c ? copyWith(b, { text: c.text, elided: c.elided }) : b;
  }
  return b;
}

function elideBlock(b: Block): Block {
  switch (b.type) {
    case 'text':
    case 'reasoning':
      return elideLeaf(b);
    case 'tool_call': {
      const c = cut(b.input);
      return c ? copyWith(b, { input: c.text, elided: c.elided }) : b;
    }
    case 'tool_result': {
      let content: LeafBlock[] | null = null;
      for (let i = 0; i < b.content.length; i++) {
        const x = b.content[i] as LeafBlock;
        const y = elideLeaf(x);
        if (y !== x && content === null) content = b.content.slice(0, i);
        if (content !== null) content.push(y);
      }
      return content ? copyWith(b, { content }) : b;
    }
    default:
      return b;
  }
}

/** The same blocks with long texts cut to previews, or the same array when nothing is long. */
export function elideBlocks(blocks: readonly Block[]): Block[] {
  // Most items have nothing to cut: allocate only from the first block that changes (hot path).
  let out: Block[] | null = null;
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i] as Block;
    const e = elideBlock(b);
    if (e !== b && out === null) out = blocks.slice(0, i);
    if (out !== null) out.push(e);
  }
  return out ?? (blocks as Block[]);
}

function cutLeafInPlace(b: LeafBlock): boolean {
  if (b.type !== 'text' && b.type !== 'reasoning') return false;
  const c = cut(b.text);
  if (!c) return false;
  const m = b as { text: string; elided?: number };
  m.text = c.text;
  m.elided = c.elided;
  return true;
}

/**
 * elideBlocks on blocks the caller owns: each long text is cut where it stands, and the result is
 * the same as elideBlocks' (the same keys in the same order). True when a text was cut.
 *
 * Why in place: a copy leaves the parsed block's hidden class with no object once the load is over,
 * and V8 then throws away the importer's code built for it (see keepShape in
 * src/main/reader/shapes.ts); and it costs an allocation per block.
 */
export function elideBlocksInPlace(blocks: readonly Block[]): boolean {
  let cutAny = false;
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i] as Block;
    switch (b.type) {
      case 'text':
      case 'reasoning':
        if (cutLeafInPlace(b)) cutAny = true;
        break;
      case 'tool_call': {
        const c = cut(b.input);
        if (c) {
          const m = b as { input: string; elided?: number };
          m.input = c.text;
          m.elided = c.elided;
          cutAny = true;
        }
        break;
      }
      case 'tool_result':
        for (let j = 0; j < b.content.length; j++) if (cutLeafInPlace(b.content[j] as LeafBlock)) cutAny = true;
        break;
      default:
        break;
    }
  }
  return cutAny;
}

/** The event as kept in memory. Only content blocks are elided; structure is never touched. */
export function elideEvent(e: EventBody): EventBody {
  switch (e.kind) {
    case 'item': {
      const blocks = elideBlocks(e.item.blocks);
      return blocks === e.item.blocks ? e : copyWith(e, { item: copyWith(e.item, { blocks }) });
    }
    case 'header':
      if (!e.system) return e;
      return copyWith(e, { system: elideBlocks(e.system) });
    case 'compaction/summary':
      return copyWith(e, { summary: elideBlocks(e.summary) });
    case 'mapreduce/map':
      return e.summary ? copyWith(e, { summary: elideBlocks(e.summary) }) : e;
    case 'mapreduce/reduce':
      return e.output ? copyWith(e, { output: elideBlocks(e.output) }) : e;
    case 'mapreduce/correction':
      return e.output ? copyWith(e, { output: elideBlocks(e.output) }) : e;
    case 'mask':
      return e.reference ? copyWith(e, { reference: elideBlocks(e.reference) }) : e;
    default:
      return e;
  }
}
