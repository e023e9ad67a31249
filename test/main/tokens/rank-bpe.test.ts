import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadEncoder, loadTiktoken, type BpeEncoder } from '../../../src/main/tokens/encoder';
import { parseRanks, RankBpe, utf8Binary } from '../../../src/main/tokens/rank-bpe';
import { sessionTexts } from './session-texts';

const encodings = ['o200k_base', 'cl100k_base'] as const;
const reference = new Map<string, BpeEncoder>();
const lean = new Map<string, RankBpe>();

beforeAll(async () => {
  for (const enc of encodings) {
    reference.set(enc, (await loadTiktoken(enc)).bpe);
    const ranks = (await (enc === 'o200k_base' ? import('js-tiktoken/ranks/o200k_base') : import('js-tiktoken/ranks/cl100k_base'))).default;
    lean.set(enc, RankBpe.fromFile(ranks));
  }
});

const SAMPLE = [
  'Hello, world! This is a perfectly ordinary sentence, with punctuation; and numbers: 12345, 3.14159.',
  'export function step1(input: string): string { return input.trim(); }\n\n  // indented comment →',
  'Größe, naïve café, déjà vu — São Paulo, Zürich. 日本語のテキストと中文注释。한국어 문장. Привет, мир! 🚀🔧✅⚠️',
  '<|endoftext|> and <|fim_prefix|> are only text here, as a provider counts them in a user message.',
  '    \n\n\t\t  trailing spaces   \r\n',
  'https://example.com/path/to/file.ts?query=1&b=2#hash dGhpcyBpcyBiYXNlNjQ+Lw== 0xdeadbeef',
  'supercalifragilisticexpialidociousantidisestablishmentarianism',
  '',
];

describe('lean byte-pair encoding over the rank files', () => {
  it('gives the same token ids as js-tiktoken', () => {
    for (const enc of encodings) {
      const ours = lean.get(enc) as RankBpe;
      const theirs = reference.get(enc) as BpeEncoder;
      for (const t of SAMPLE) expect(ours.encode(t)).toEqual(theirs.encode(t, [], []));
    }
  });

  it('agrees with js-tiktoken on generated text, lone surrogates included (property)', () => {
    const ours = lean.get('o200k_base') as RankBpe;
    const theirs = reference.get('o200k_base') as BpeEncoder;
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.string({ maxLength: 20 }),
            fc.string({ unit: 'binary', maxLength: 8 }),
            fc.constantFrom('日本語', '🚀', ' the', '\n\n', "'s"),
          ),
          { maxLength: 30 },
        ),
        (ws) => {
          const text = ws.join('');
          expect(ours.encode(text)).toEqual(theirs.encode(text, [], []));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('agrees with js-tiktoken on a real Claude Code session (fixtures/claude-code/short.jsonl)', () => {
    const texts = sessionTexts(5_000);
    for (const enc of encodings) {
      const ours = lean.get(enc) as RankBpe;
      const theirs = reference.get(enc) as BpeEncoder;
      for (const t of texts) expect(ours.encode(t).length).toBe(theirs.encode(t, [], []).length);
    }
  });

  it('reads every rank of a rank file, and skips what is not a rank line', () => {
    const ranks = parseRanks('! 0 IQ== Ig==\n\nbad\n? 7 aGk= \n');
    expect([...ranks]).toEqual([
      ['!', 0],
      ['"', 1],
      ['hi', 7],
    ]);
    expect((lean.get('o200k_base') as RankBpe).encode('x').length).toBe(1);
  });

  it('writes UTF-8 as one char code per byte', () => {
    expect(utf8Binary('abc')).toBe('abc');
    expect([...utf8Binary('é🚀')].map((c) => c.charCodeAt(0))).toEqual([0xc3, 0xa9, 0xf0, 0x9f, 0x9a, 0x80]);
  });

  it('is what the bounded encoder counts with', async () => {
    const e = await loadEncoder('o200k_base');
    for (const t of SAMPLE) expect(e.count(t)).toBe((reference.get('o200k_base') as BpeEncoder).encode(t, [], []).length);
  });
});
