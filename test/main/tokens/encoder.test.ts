import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { sessionTexts } from './session-texts';
import {
  BoundedEncoder,
  cutPiece,
  DEFAULT_MAX_LONG_CHUNKS,
  DEFAULT_MAX_PIECE_BYTES,
  loadTiktoken,
  newStats,
  utf8Length,
  type BpeEncoder,
} from '../../../src/main/tokens/encoder';

let o200k: { bpe: BpeEncoder; patStr: string };
let cl100k: { bpe: BpeEncoder; patStr: string };
beforeAll(async () => {
  [o200k, cl100k] = await Promise.all([loadTiktoken('o200k_base'), loadTiktoken('cl100k_base')]);
});

/** A BPE that counts its work, around js-tiktoken's. */
function counting(bpe: BpeEncoder) {
  const calls: number[] = [];
  return {
    calls,
    bpe: { encode: (t: string, a?: string[] | 'all', d?: string[] | 'all') => (calls.push(utf8Length(t)), bpe.encode(t, a, d)) },
  };
}

const SAMPLE = [
  'Hello, world! This is a perfectly ordinary sentence, with punctuation; and numbers: 12345, 3.14159.',
  'export function step1(input: string): string { return input.trim(); }\n\n  // indented comment →',
  'Größe, naïve café, déjà vu — São Paulo, Zürich. 日本語のテキストと中文注释。한국어 문장. Привет, мир! 🚀🔧✅⚠️',
  '<|endoftext|> and <|fim_prefix|> are only text here, as a provider counts them in a user message.',
  '    \n\n\t\t  trailing spaces   \r\n',
  'https://example.com/path/to/file.ts?query=1&b=2#hash dGhpcyBpcyBiYXNlNjQ+Lw== 0xdeadbeef',
];

describe('bounded encoder', () => {
  it('counts normal text exactly as js-tiktoken does', () => {
    for (const enc of [o200k, cl100k]) {
      const e = new BoundedEncoder(enc === o200k ? 'o200k_base' : 'cl100k_base', enc.bpe, enc.patStr);
      for (const t of SAMPLE) expect(e.count(t)).toBe(enc.bpe.encode(t, [], []).length);
    }
  });

  it('agrees with js-tiktoken on generated text (property)', () => {
    const e = new BoundedEncoder('o200k_base', o200k.bpe, o200k.patStr);
    const word = fc.oneof(
      fc.constantFrom(
        'the',
        'token',
        'Compaction',
        "don't",
        'JSON.parse()',
        '→',
        '—',
        'café',
        '日本語',
        '🚀',
        '42',
        '3.14',
        '\n',
        '\t',
        '  ',
        'x_y',
        '<|endoftext|>',
      ),
      fc.string({ maxLength: 12 }),
    );
    fc.assert(
      fc.property(fc.array(word, { maxLength: 60 }), fc.constantFrom(' ', '', '\n'), (ws, sep) => {
        const text = ws.join(sep);
        return e.count(text) === o200k.bpe.encode(text, [], []).length;
      }),
      { numRuns: 300 },
    );
  });

  it('agrees with js-tiktoken on a real Claude Code session (fixtures/claude-code/short.jsonl)', () => {
    const texts = sessionTexts(20_000);
    expect(texts.length).toBeGreaterThan(50);
    const e = new BoundedEncoder('o200k_base', o200k.bpe, o200k.patStr);
    let ours = 0;
    let theirs = 0;
    for (const t of texts) {
      ours += e.count(t);
      theirs += o200k.bpe.encode(t, [], []).length;
    }
    expect(ours).toBe(theirs);
  });

  it('never hands the byte-pair merge more than the bound, so a 64 KB run of letters stays cheap', () => {
    const letters = 'abcdefghijklmnopqrstuvwxyz';
    let run = '';
    let s = 12345;
    while (run.length < 65_536) {
      s = (s * 1103515245 + 12345) & 0x7fffffff;
      run += letters[s % 26];
    }
    // Exact on bounded pieces: 512 chunks of 128 bytes, each merged once.
    const exact = counting(o200k.bpe);
    const stats = newStats();
    const e = new BoundedEncoder('o200k_base', exact.bpe, o200k.patStr, { maxLongChunks: Infinity });
    const n = e.count(run, stats);
    expect(stats.pieces).toBe(1);
    expect(stats.longPieces).toBe(1);
    expect(stats.chunks).toBe(65_536 / DEFAULT_MAX_PIECE_BYTES);
    expect(Math.max(...exact.calls)).toBe(DEFAULT_MAX_PIECE_BYTES);
    expect(stats.maxMergeBytes).toBe(DEFAULT_MAX_PIECE_BYTES);
    expect(stats.estimatedTokens).toBe(0);

    // With the work cap: only the first 64 chunks are merged; the rest is estimated and labelled.
    const capped = counting(o200k.bpe);
    const cs = newStats();
    const c = new BoundedEncoder('o200k_base', capped.bpe, o200k.patStr).count(run, cs);
    expect(capped.calls.length).toBe(DEFAULT_MAX_LONG_CHUNKS);
    expect(cs.estimatedChunks).toBe(512 - DEFAULT_MAX_LONG_CHUNKS);
    expect(cs.estimatedTokens).toBeGreaterThan(0);
    expect(Math.abs(c - n) / n).toBeLessThan(0.02);
  });

  it('bounding a long run changes its count by well under 1 % (2 KB of letters, against raw js-tiktoken)', () => {
    let run = '';
    let s = 7;
    while (run.length < 2048) {
      s = (s * 1103515245 + 12345) & 0x7fffffff;
      run += 'abcdefghijklmnopqrstuvwxyz'[s % 26];
    }
    const raw = o200k.bpe.encode(run, [], []).length;
    const bounded = new BoundedEncoder('o200k_base', o200k.bpe, o200k.patStr).count(run);
    expect(Math.abs(bounded - raw) / raw).toBeLessThan(0.01);
  });

  it('memoises pieces: repeated text costs no new merges', () => {
    const c = counting(o200k.bpe);
    const e = new BoundedEncoder('o200k_base', c.bpe, o200k.patStr);
    const text = SAMPLE.join(' ');
    const first = e.count(text);
    const calls = c.calls.length;
    expect(e.count(text)).toBe(first);
    expect(c.calls.length).toBe(calls);
  });

  it('cuts pieces at byte bounds without splitting a surrogate pair (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), fc.integer({ min: 4, max: 64 }), (piece, max) => {
        const chunks = cutPiece(piece, max);
        if (chunks.join('') !== piece) return false;
        for (const ch of chunks) {
          if (utf8Length(ch) > max && [...ch].length > 1) return false;
          const first = ch.charCodeAt(0);
          if (first >= 0xdc00 && first <= 0xdfff) return false;
        }
        return true;
      }),
    );
  });
});
