import { describe, expect, it } from 'vitest';
import type { Block } from '../../../../src/shared/model/content';
import { codePointLength, cutHeadTail, shortenToolBodies } from '../../../../src/shared/strategies/common/shorten';
import { bodyMarker, RIND_BODY_RULE } from '../../../../src/shared/strategies/one-shot/precheck';
import { dshPruneRule, PRUNE_MARKER } from '../../../../src/shared/strategies/dsh-basic/pruner';
import { hasLoneSurrogate } from './build';

const digits = (n: number): string => Array.from({ length: n }, (_, i) => String(i % 10)).join('');
const EMOJI = '😀'; // one code point, two UTF-16 code units

describe('cutHeadTail: Rind body shortening (first 2,000 + last 2,000 characters)', () => {
  it('keeps exactly the first 2,000 and last 2,000 characters with the omitted amount between', () => {
    const body = digits(10_000);
    const cut = cutHeadTail(body, RIND_BODY_RULE);
    expect(cut).toEqual({
      text: body.slice(0, 2_000) + '\n[... 6,000 characters omitted ...]\n' + body.slice(8_000),
      head: 2_000,
      tail: 2_000,
      omitted: 6_000,
    });
    expect(bodyMarker(6_000)).toBe('\n[... 6,000 characters omitted ...]\n');
  });

  it('leaves a body of 4,000 characters alone, and one that the marker would make longer', () => {
    expect(cutHeadTail(digits(4_000), RIND_BODY_RULE)).toBeNull();
    // 4,030 characters: 2,000 + a 35-character marker + 2,000 = 4,035, longer than the original.
    expect(cutHeadTail(digits(4_030), RIND_BODY_RULE)).toBeNull();
    expect(cutHeadTail(digits(4_100), RIND_BODY_RULE)?.omitted).toBe(100);
  });

  it('counts characters as code points (Rind is Python), so an emoji body is never split', () => {
    const body = EMOJI.repeat(5_000);
    const cut = cutHeadTail(body, RIND_BODY_RULE);
    expect(cut?.omitted).toBe(1_000);
    expect(cut?.text).toBe(EMOJI.repeat(2_000) + bodyMarker(1_000) + EMOJI.repeat(2_000));
    expect(hasLoneSurrogate(cut?.text ?? '')).toBe(false);
  });

  it("'chars' cuts step around a surrogate pair instead of splitting it", () => {
    const rule = { threshold: 4, head: 2, tail: 2, unit: 'chars' as const, marker: (n: number) => `<${n}>` };
    const text = `a${EMOJI}bcdefghij${EMOJI}`; // 14 code units: a, hi, lo, b..j (9), hi, lo
    const cut = cutHeadTail(text, rule);
    expect(cut?.text).toBe(`a<11>${EMOJI}`);
    expect(cut).toMatchObject({ head: 1, tail: 2, omitted: 11 });
    expect(hasLoneSurrogate(cut?.text ?? '')).toBe(false);
  });
});

describe('cutHeadTail: DeepSeek Harness pruner (8,192 code points -> 4,096 + marker + 1,024)', () => {
  it('does not touch 8,192 code points of astral characters (16,384 UTF-16 units)', () => {
    const body = EMOJI.repeat(8_192);
    expect(body.length).toBe(16_384);
    expect(cutHeadTail(body, dshPruneRule())).toBeNull();
  });

  it('cuts 8,193 code points to 4,096 head + fixed marker + 1,024 tail, never splitting a pair', () => {
    const body = 'A' + EMOJI.repeat(8_192);
    const cut = cutHeadTail(body, dshPruneRule());
    expect(cut?.text).toBe('A' + EMOJI.repeat(4_095) + PRUNE_MARKER + EMOJI.repeat(1_024));
    expect(cut).toMatchObject({ head: 4_096, tail: 1_024, omitted: 3_073 });
    expect(hasLoneSurrogate(cut?.text ?? '')).toBe(false);
    // The result is under the threshold, so a later scan does not trim it again (DeepSeek Harness).
    expect(cutHeadTail(cut?.text ?? '', dshPruneRule())).toBeNull();
    expect(codePointLength(cut?.text ?? '')).toBe(5_120 + PRUNE_MARKER.length);
  });
});

describe('shortenToolBodies', () => {
  it('cuts only tool-result text leaves; tool call arguments, user text and images keep place and bytes', () => {
    const long = digits(9_000);
    const blocks: Block[] = [
      { type: 'text', text: long },
      { type: 'tool_call', id: 'k1', name: 'write', input: long },
      {
        type: 'tool_result',
        callId: 'k0',
        content: [
          { type: 'image', mediaType: 'image/png' },
          { type: 'text', text: long },
          { type: 'text', text: 'short' },
        ],
      },
    ];
    const out = shortenToolBodies(blocks, RIND_BODY_RULE);
    expect(out).toMatchObject({ cuts: 1, head: 2_000, tail: 2_000, omitted: 5_000 });
    expect(out?.blocks[0]).toBe(blocks[0]);
    expect(out?.blocks[1]).toBe(blocks[1]);
    expect(out?.blocks[2]).toEqual({
      type: 'tool_result',
      callId: 'k0',
      content: [
        { type: 'image', mediaType: 'image/png' },
        { type: 'text', text: long.slice(0, 2_000) + bodyMarker(5_000) + long.slice(7_000) },
        { type: 'text', text: 'short' },
      ],
    });
    expect(shortenToolBodies([blocks[0] as Block, blocks[1] as Block], RIND_BODY_RULE)).toBeNull();
  });
});
