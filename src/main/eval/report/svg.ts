import type { MatrixCell } from '../../../shared/eval/aggregate';
import { escapeHtml as esc, pct, usd } from './format';

/*
 * The report's two charts as inline SVG: no script, no external resource, every label escaped.
 * Tooltips are SVG <title> elements, which browsers show natively.
 * - recallBars: mean recall per strategy (groups) and model (bars), whiskers from the lowest to the
 *   highest per-repeat value: the spread over repeats.
 * - costScatter: cost per run against mean recall, one point per strategy × model; cells whose cost
 *   is unknown (no prices) cannot be placed and are listed under the chart instead.
 */

export const PALETTE = ['#2f6fdf', '#d9822b', '#2e9e6a', '#b24fb0', '#c23b3b', '#6b7a8f', '#a8860b', '#1a9bb0'] as const;

export const colorOf = (models: readonly string[], model: string): string =>
  PALETTE[Math.max(0, models.indexOf(model)) % PALETTE.length] as string;

const clip = (s: string, n: number): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const f1 = (x: number): string => x.toFixed(1);

export function recallBars(cells: readonly MatrixCell[], strategies: readonly string[], models: readonly string[]): string {
  const W = 760,
    H = 320,
    left = 48,
    right = 16,
    top = 16,
    bottom = 70;
  const plotW = W - left - right,
    plotH = H - top - bottom;
  const y = (v: number): number => top + plotH * (1 - v);
  const groupW = plotW / Math.max(1, strategies.length);
  const barW = Math.max(6, Math.min(36, (groupW - 16) / Math.max(1, models.length)));
  const parts: string[] = [];
  for (const t of [0, 0.25, 0.5, 0.75, 1]) {
    parts.push(
      `<line x1="${left}" x2="${W - right}" y1="${f1(y(t))}" y2="${f1(y(t))}" class="grid"/>`,
      `<text x="${left - 6}" y="${f1(y(t) + 4)}" class="tick" text-anchor="end">${t * 100}%</text>`,
    );
  }
  strategies.forEach((s, gi) => {
    const mine = models.map((m) => cells.find((c) => c.strategy === s && c.model === m)).filter((c): c is MatrixCell => c !== undefined);
    const x0 = left + gi * groupW + (groupW - mine.length * barW) / 2;
    mine.forEach((c, bi) => {
      const x = x0 + bi * barW;
      const st = c.quality.recall;
      const color = colorOf(models, c.model);
      const tip = esc(
        `${c.strategy} × ${c.model}: ${st === null ? 'not measured' : `mean ${pct(st.mean)}, min ${pct(st.min)}, max ${pct(st.max)}, ${st.n} repeat${st.n === 1 ? '' : 's'}`}`,
      );
      if (st === null) {
        parts.push(`<text x="${f1(x + barW / 2)}" y="${f1(y(0) - 4)}" class="na" text-anchor="middle"><title>${tip}</title>n/a</text>`);
        return;
      }
      parts.push(
        `<rect x="${f1(x + 1)}" y="${f1(y(st.mean))}" width="${f1(barW - 2)}" height="${f1(y(0) - y(st.mean))}" fill="${color}"><title>${tip}</title></rect>`,
      );
      if (st.max > st.min) {
        const cx = f1(x + barW / 2);
        parts.push(
          `<path d="M${cx} ${f1(y(st.min))}V${f1(y(st.max))}M${f1(x + barW / 2 - 4)} ${f1(y(st.min))}h8M${f1(x + barW / 2 - 4)} ${f1(y(st.max))}h8" class="whisker"/>`,
        );
      }
    });
    parts.push(
      `<text x="${f1(left + gi * groupW + groupW / 2)}" y="${H - bottom + 16}" class="label" text-anchor="middle">${esc(clip(s, 22))}</text>`,
    );
  });
  models.forEach((m, i) => {
    const x = left + (i % 4) * 180;
    const yy = H - bottom + 36 + Math.floor(i / 4) * 16;
    parts.push(
      `<rect x="${x}" y="${yy - 9}" width="10" height="10" fill="${colorOf(models, m)}"/><text x="${x + 14}" y="${yy}" class="legend">${esc(clip(m, 26))}</text>`,
    );
  });
  return `<svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="Recall by strategy and model, with the spread over repeats">${parts.join('')}</svg>`;
}

export function costScatter(cells: readonly MatrixCell[], models: readonly string[]): { svg: string; unplaced: readonly MatrixCell[] } {
  const W = 760,
    H = 320,
    left = 56,
    right = 24,
    top = 16,
    bottom = 44;
  const plotW = W - left - right,
    plotH = H - top - bottom;
  const placed = cells.filter((c) => c.spend.costPerRun !== null && c.quality.recall !== null);
  const unplaced = cells.filter((c) => !placed.includes(c));
  const maxCost = Math.max(0, ...placed.map((c) => c.spend.costPerRun as number));
  const xMax = maxCost > 0 ? maxCost * 1.1 : 1;
  const x = (v: number): number => left + plotW * (v / xMax);
  const y = (v: number): number => top + plotH * (1 - v);
  const parts: string[] = [];
  for (const t of [0, 0.25, 0.5, 0.75, 1]) {
    parts.push(
      `<line x1="${left}" x2="${W - right}" y1="${f1(y(t))}" y2="${f1(y(t))}" class="grid"/>`,
      `<text x="${left - 6}" y="${f1(y(t) + 4)}" class="tick" text-anchor="end">${t * 100}%</text>`,
    );
    parts.push(
      `<text x="${f1(x(t * xMax))}" y="${H - bottom + 16}" class="tick" text-anchor="middle">${maxCost > 0 ? esc(usd(t * xMax)) : t === 0 ? '$0' : ''}</text>`,
    );
  }
  parts.push(`<text x="${left + plotW / 2}" y="${H - 6}" class="axis" text-anchor="middle">cost per run (USD)</text>`);
  // Cells at the same spot (deterministic baselines often are) share one point and one label.
  const spots = new Map<string, MatrixCell[]>();
  for (const c of placed) {
    const key = `${f1(x(c.spend.costPerRun as number))},${f1(y((c.quality.recall as { mean: number }).mean))}`;
    spots.set(key, [...(spots.get(key) ?? []), c]);
  }
  for (const [key, group] of spots) {
    const [cx, cy] = key.split(',').map(Number) as [number, number];
    const tip = esc(
      group
        .map(
          (c) =>
            `${c.strategy} × ${c.model}: recall ${pct(c.quality.recall?.mean)}, ${usd(c.spend.costPerRun)} per run${c.mock ? ' (mock)' : ''}`,
        )
        .join('\n'),
    );
    const first = group[0] as MatrixCell;
    parts.push(
      `<circle cx="${f1(cx)}" cy="${f1(cy)}" r="6" fill="${colorOf(models, first.model)}"${group.every((c) => c.mock) ? ' class="mock"' : ''}><title>${tip}</title></circle>`,
    );
    parts.push(
      `<text x="${f1(cx + 9)}" y="${f1(cy + 4)}" class="point">${esc(clip(group.map((c) => (group.length > 1 ? `${c.strategy} × ${c.model}` : c.strategy)).join(', '), 90))}</text>`,
    );
  }
  return {
    svg: `<svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="Cost per run against recall">${parts.join('')}</svg>`,
    unplaced,
  };
}
