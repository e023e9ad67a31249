import type { TokenSeries } from '../../shared/api/contract';
import { grouped } from '../../shared/grouped';

/**
 * The context-size chart's geometry: one point per agent request (the provider's figure where
 * reported, else the estimate), compactions as vertical marks where the context drops, and the
 * policy's trigger and the window as step lines (a window can change along a session). SVG
 * coordinates; y grows downward.
 */

export interface ChartPoint {
  readonly index: number;
  readonly x: number;
  readonly y: number;
  readonly tokens: number;
  readonly reported: boolean;
}

export interface ChartLayout {
  readonly width: number;
  readonly height: number;
  readonly yMax: number;
  readonly points: readonly ChartPoint[];
  /** `M x y L …` paths; empty when there is nothing to draw. */
  readonly size: string;
  readonly trigger: string;
  readonly window: string;
  readonly compactions: readonly { readonly id: string; readonly x: number }[];
  /** Prompt-cache breaks, at the agent request that broke the cache (its size point). */
  readonly breaks: readonly { readonly index: number; readonly x: number; readonly y: number; readonly label: string }[];
  /** x of a request's position (the nearest agent request at or before it). */
  readonly xOf: (index: number) => number | null;
  /** The request under an x (nearest point). */
  readonly indexAt: (x: number) => number | null;
}

export interface ChartBox {
  readonly width: number;
  readonly height: number;
  /** Space kept on the left for the axis labels, and at the top and bottom. */
  readonly left: number;
  readonly pad: number;
}

const fmt = (v: number): string => (Math.round(v * 10) / 10).toString();

/** A step line through (x, v) pairs: horizontal to the next x, then vertical. Gaps (null) break it. */
function stepPath(xs: readonly number[], vs: readonly (number | null)[], y: (v: number) => number): string {
  let d = '';
  let open = false;
  for (let i = 0; i < xs.length; i++) {
    const v = vs[i];
    if (v === null || v === undefined) {
      open = false;
      continue;
    }
    const x = xs[i] as number;
    d += open ? ` L${fmt(x)} ${fmt(y(v))}` : `${d ? ' ' : ''}M${fmt(x)} ${fmt(y(v))}`;
    const nx = xs[i + 1];
    if (nx !== undefined && vs[i + 1] !== null) d += ` L${fmt(nx)} ${fmt(y(v))}`;
    open = true;
  }
  return d;
}

export function chartLayout(series: Pick<TokenSeries, 'points' | 'compactions'>, box: ChartBox): ChartLayout {
  const agent = series.points.filter((p) => p.purpose === 'agent');
  const sizes = agent.map((p) => p.reported ?? p.size ?? p.estimated);
  const yMax = Math.max(1, ...sizes, ...agent.map((p) => p.window ?? 0), ...agent.map((p) => p.trigger ?? 0));
  const plotW = Math.max(1, box.width - box.left - box.pad);
  const plotH = Math.max(1, box.height - 2 * box.pad);
  const n = agent.length;
  const xAt = (i: number): number => box.left + (n <= 1 ? plotW / 2 : (i / (n - 1)) * plotW);
  const y = (v: number): number => box.pad + plotH - (v / yMax) * plotH;
  const points: ChartPoint[] = agent.map((p, i) => ({
    index: p.index,
    x: xAt(i),
    y: y(sizes[i] as number),
    tokens: sizes[i] as number,
    reported: p.reported !== null,
  }));
  const size = points.map((p, i) => `${i === 0 ? 'M' : 'L'}${fmt(p.x)} ${fmt(p.y)}`).join(' ');
  const xs = points.map((p) => p.x);
  const trigger = stepPath(
    xs,
    agent.map((p) => p.trigger),
    y,
  );
  const window = stepPath(
    xs,
    agent.map((p) => p.window),
    y,
  );

  /** Position of the last agent request at or before `index`, or -1. */
  const before = (index: number): number => {
    let lo = 0;
    let hi = agent.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((agent[mid] as { index: number }).index <= index) lo = mid + 1;
      else hi = mid;
    }
    return lo - 1;
  };
  const compactions = series.compactions.flatMap((c) => {
    if (c.afterIndex === null || n === 0) return [];
    const i = before(c.afterIndex);
    if (i < 0) return [{ id: c.id, x: xAt(0) }];
    // Between the request it followed and the next one: the drop.
    return [{ id: c.id, x: i + 1 < n ? (xAt(i) + xAt(i + 1)) / 2 : xAt(i) }];
  });
  const breaks = agent.flatMap((p, i) => {
    const b = p.cacheBreak;
    if (!b) return [];
    const pt = points[i] as ChartPoint;
    return [
      {
        index: p.index,
        x: pt.x,
        y: pt.y,
        label: `#${p.index}: cache break (${b.cause}${b.certain ? '' : '?'}), ${grouped(b.tokens)} tokens not read`,
      },
    ];
  });
  return {
    width: box.width,
    height: box.height,
    yMax,
    points,
    size,
    trigger,
    window,
    compactions,
    breaks,
    xOf: (index) => {
      const i = before(index);
      return i < 0 ? (n > 0 ? xAt(0) : null) : xAt(i);
    },
    indexAt: (x) => {
      if (n === 0) return null;
      const i = Math.round(n <= 1 ? 0 : ((x - box.left) / plotW) * (n - 1));
      return (agent[Math.min(n - 1, Math.max(0, i))] as { index: number }).index;
    },
  };
}
