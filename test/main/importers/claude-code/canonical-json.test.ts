import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../../src/main/importers/claude-code/requests';
import { MAX_CONTENT_DEPTH, jsonText } from '../../../../src/shared/json-depth';

/** An array nested `levels` deep around `inner`, with an object key to sort at the top. */
function nested(levels: number, inner: unknown): unknown {
  let v = inner;
  for (let i = 0; i < levels; i++) v = [v];
  return { z: 1, a: v };
}

describe('claude-code: the canonical JSON messages are hashed in', () => {
  it('sorts keys, drops undefined members and writes no spaces', () => {
    expect(canonicalJson({ type: 'text', text: 'é "q"', cache: undefined, b: [1, null, { y: 2, x: true }] })).toBe(
      '{"b":[1,null,{"x":true,"y":2}],"text":"é \\"q\\"","type":"text"}',
    );
  });

  it('walks a value exactly MAX_CONTENT_DEPTH deep, and writes a deeper one in its own key order', () => {
    // The object is level 1, so MAX_CONTENT_DEPTH - 1 arrays in it reach the bound and no further.
    const deepest = nested(MAX_CONTENT_DEPTH - 1, 0);
    expect(canonicalJson(deepest)).toBe(`{"a":${'['.repeat(MAX_CONTENT_DEPTH - 1)}0${']'.repeat(MAX_CONTENT_DEPTH - 1)},"z":1}`);
    const deeper = nested(MAX_CONTENT_DEPTH, 0);
    expect(canonicalJson(deeper)).toBe(jsonText(deeper));
    expect(canonicalJson(deeper).startsWith('{"z":1,')).toBe(true);
  });

  it('does not overflow the stack on a value far too deep', () => {
    const v = nested(200_000, 'x');
    expect(canonicalJson(v)).toBe(jsonText(v));
  });
});
