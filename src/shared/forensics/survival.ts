import { CATEGORIES, type Anchor, type Category } from './categories';
import { matchAnchor, Target } from './match';

/* Survival rates per category, and the anchors lost, for one candidate text. */

export interface Rate {
  readonly total: number;
  readonly verbatim: number;
  readonly normalised: number;
  readonly lost: number;
  /** (verbatim + normalised) / total; null when the source has no anchor of the category. */
  readonly rate: number | null;
}

export type Rates = Readonly<Record<Category, Rate>>;

export interface LostAnchor {
  readonly category: Category;
  readonly text: string;
  readonly seq: number;
}

export interface SurvivalResult {
  readonly survival: Rates;
  /** Every lost anchor, in category order then as said. */
  readonly lost: readonly LostAnchor[];
}

export function survivalOf(anchors: readonly Anchor[], target: string): SurvivalResult {
  const t = new Target(target);
  const counts = new Map<Category, { total: number; verbatim: number; normalised: number; lost: number }>();
  for (const c of CATEGORIES) counts.set(c, { total: 0, verbatim: 0, normalised: 0, lost: 0 });
  const lost: LostAnchor[] = [];
  for (const a of anchors) {
    const n = counts.get(a.category);
    if (!n) continue;
    const m = matchAnchor(a, t);
    n.total++;
    n[m]++;
    if (m === 'lost') lost.push({ category: a.category, text: a.text, seq: a.seq });
  }
  const survival = Object.fromEntries(
    CATEGORIES.map((c) => {
      const n = counts.get(c) ?? { total: 0, verbatim: 0, normalised: 0, lost: 0 };
      return [c, { ...n, rate: n.total === 0 ? null : (n.verbatim + n.normalised) / n.total }];
    }),
  ) as Record<Category, Rate>;
  const order = new Map(CATEGORIES.map((c, i) => [c, i]));
  lost.sort((a, b) => (order.get(a.category) ?? 0) - (order.get(b.category) ?? 0));
  return { survival, lost };
}
