import { CATEGORY_INDEX, TOKEN_CATEGORIES, type TokenCategory } from '../../../src/shared/tokens/categories';
import type { CountSource, RefCount, RefSpec } from '../../../src/shared/tokens/units';
import { refParts } from '../../../src/shared/tokens/units';

/** A deterministic stand-in tokenizer for pure tests: one token per whitespace-separated word. */
export const words = (text: string): number => text.split(/\s+/).filter((w) => w.length > 0).length;

/** A count source that has counted exactly the refs given to `count`, with `words`; it moves (its epoch changes) with every count, as the token service does. */
export class FakeSource implements CountSource {
  readonly encoding = 'o200k_base' as const;
  epoch = 0;
  private readonly counts = new Map<number, RefCount>();

  count(specs: readonly RefSpec[]): void {
    for (const spec of specs) {
      const cats = new Array<number>(TOKEN_CATEGORIES.length).fill(0);
      for (const p of refParts(spec)) cats[CATEGORY_INDEX[p.category]] = (cats[CATEGORY_INDEX[p.category]] ?? 0) + words(p.text);
      const pairs: number[] = [];
      let total = 0;
      cats.forEach((t, i) => {
        if (t > 0) {
          pairs.push(i, t);
          total += t;
        }
      });
      this.counts.set(spec.ref, { cats: pairs, total, estimated: 0 });
    }
    this.epoch++;
  }

  get(ref: number): RefCount | undefined {
    return this.counts.get(ref);
  }

  charsPerToken(_category: TokenCategory): number {
    return 4;
  }
}
