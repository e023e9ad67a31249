import { describe, expect, it } from 'vitest';
import { SeqIndex } from '../../../src/main/session/seq-index';

describe('SeqIndex', () => {
  it('answers -1 for seqs never set, negative or past the end, and keeps values across growth and trim', () => {
    const ix = new SeqIndex();
    ix.set(3, 7);
    ix.set(5_000, 9);
    expect([ix.get(3), ix.get(4), ix.get(4_000), ix.get(5_000), ix.get(-1), ix.get(1e9)]).toEqual([7, -1, -1, 9, -1, -1]);
    ix.trim(5_001);
    expect([ix.get(3), ix.get(5_000), ix.get(5_001)]).toEqual([7, 9, -1]);
  });
});
