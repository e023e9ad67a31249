import { describe, expect, it } from 'vitest';
import type { Block } from '../../../src/shared/model/content';
import { ELIDE_OVER, PREVIEW_CHARS, elideBlocks, elideBlocksInPlace, elideEvent } from '../../../src/main/session/elide';

const long = 'x'.repeat(ELIDE_OVER + 10);

describe('elision of long texts', () => {
  it('returns the very same arrays when nothing is long (no copy on the hot path)', () => {
    const blocks: Block[] = [
      { type: 'text', text: 'short' },
      { type: 'tool_call', id: 'c', name: 'n', input: '{}' },
    ];
    expect(elideBlocks(blocks)).toBe(blocks);
    const e = { kind: 'item' as const, op: { op: 'append' as const }, item: { id: 'i', role: 'user' as const, blocks } };
    expect(elideEvent(e)).toBe(e);
  });

  it('keeps a preview and counts what it left out, in every kind of text', () => {
    const blocks: Block[] = [
      { type: 'text', text: 'short' },
      { type: 'text', text: long },
      { type: 'tool_call', id: 'c', name: 'n', input: long },
      {
        type: 'tool_result',
        callId: 'c',
        content: [
          { type: 'text', text: 'ok' },
          { type: 'reasoning', text: long },
        ],
      },
    ];
    const out = elideBlocks(blocks);
    expect(out[0]).toBe(blocks[0]);
    expect(out[1]).toEqual({ type: 'text', text: long.slice(0, PREVIEW_CHARS), elided: long.length - PREVIEW_CHARS });
    expect(out[2]).toEqual({
      type: 'tool_call',
      id: 'c',
      name: 'n',
      input: long.slice(0, PREVIEW_CHARS),
      elided: long.length - PREVIEW_CHARS,
    });
    expect(out[3]).toEqual({
      type: 'tool_result',
      callId: 'c',
      content: [
        { type: 'text', text: 'ok' },
        { type: 'reasoning', text: long.slice(0, PREVIEW_CHARS), elided: long.length - PREVIEW_CHARS },
      ],
    });
    // The input is not changed.
    expect(blocks[1]).toEqual({ type: 'text', text: long });
  });

  it('never splits a surrogate pair at the end of a preview', () => {
    const text = 'a'.repeat(PREVIEW_CHARS - 1) + '😀' + 'b'.repeat(ELIDE_OVER);
    const [b] = elideBlocks([{ type: 'text', text }]);
    expect(b?.type === 'text' && b.text).toBe('a'.repeat(PREVIEW_CHARS - 1));
    expect(b?.type === 'text' && b.text.length + (b.elided ?? 0)).toBe(text.length);
  });

  it('cuts in place to exactly what the copy gives, keys in the same order, and says whether it cut', () => {
    const make = (): Block[] => [
      { type: 'text', text: 'short' },
      { type: 'text', text: long },
      { type: 'reasoning', text: long, elided: 3 },
      { type: 'tool_call', id: 'c', name: 'n', input: long },
      {
        type: 'tool_result',
        callId: 'c',
        content: [
          { type: 'text', text: 'ok' },
          { type: 'reasoning', text: long },
        ],
      },
      { type: 'image', mediaType: 'image/png', bytes: 12 },
    ];
    const copied = elideBlocks(make());
    const blocks = make();
    const inner = blocks[4];
    expect(elideBlocksInPlace(blocks)).toBe(true);
    expect(blocks).toStrictEqual(copied);
    expect(blocks.map((b) => Object.keys(b))).toEqual(copied.map((b) => Object.keys(b)));
    expect(blocks[4]).toBe(inner);
    const short: Block[] = [
      { type: 'text', text: 'short' },
      { type: 'tool_call', id: 'c', name: 'n', input: '{}' },
    ];
    expect(elideBlocksInPlace(short)).toBe(false);
    expect(short).toEqual([
      { type: 'text', text: 'short' },
      { type: 'tool_call', id: 'c', name: 'n', input: '{}' },
    ]);
  });
});
