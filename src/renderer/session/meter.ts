import type { ByCategory, PolicyLinesRow } from '../../shared/api/contract';
import { TOKEN_CATEGORIES, type TokenCategory } from '../../shared/tokens/categories';

/**
 * The token meter's geometry: the view's categories stacked along one axis, and the policy's lines
 * (window, trigger, reactive, reserves) and the provider's figure on the same axis. Positions are
 * fractions of the axis, 0–1; the axis spans the window, or whatever is larger.
 */

export interface MeterSegment {
  readonly category: TokenCategory;
  readonly tokens: number;
  readonly x: number;
  readonly width: number;
}

export type MeterLineKind = 'window' | 'trigger' | 'reactive' | 'outputReserve' | 'headroom' | 'rawTail' | 'reported';

export interface MeterLine {
  readonly kind: MeterLineKind;
  readonly tokens: number;
  readonly x: number;
  readonly label: string;
  /** Row of its label (0: under the bar, 1: over it, 2: further under), so close labels do not overlap. */
  readonly row: number;
}

/** Labels closer than this (a fraction of the axis) go to different rows. */
export const LABEL_GAP = 0.14;

export interface MeterLayout {
  /** Tokens at the right end of the axis. */
  readonly scale: number;
  readonly segments: readonly MeterSegment[];
  readonly lines: readonly MeterLine[];
  /** The estimate (or the report) is past the window. */
  readonly over: boolean;
}

export interface MeterInput {
  readonly byCategory: ByCategory;
  readonly total: number;
  readonly reportedTokens: number | null;
  readonly lines: PolicyLinesRow;
}

export function meterLayout(m: MeterInput): MeterLayout {
  const l = m.lines;
  const window = l.window;
  const biggest = Math.max(window ?? 0, m.total, m.reportedTokens ?? 0, l.trigger ?? 0, l.reactive ?? 0);
  // Without a window, leave room to the right so the last line is not on the edge.
  const scale = Math.max(1, window !== null && biggest <= window ? window : biggest * 1.05);
  const at = (t: number): number => Math.min(1, Math.max(0, t / scale));

  const segments: MeterSegment[] = [];
  let x = 0;
  for (const c of TOKEN_CATEGORIES) {
    const tokens = m.byCategory[c] ?? 0;
    if (tokens <= 0) continue;
    const width = tokens / scale;
    segments.push({ category: c, tokens, x, width });
    x += width;
  }

  const placed: Omit<MeterLine, 'row'>[] = [];
  const add = (kind: MeterLineKind, tokens: number | null, label: string): void => {
    if (tokens !== null && tokens > 0) placed.push({ kind, tokens, x: at(tokens), label });
  };
  add('window', window, 'window');
  add('trigger', l.trigger, 'trigger');
  add('reactive', l.reactive, 'reactive');
  if (window !== null && l.outputReserve !== null) add('outputReserve', window - l.outputReserve, 'output reserve');
  if (window !== null && l.headroom !== null) add('headroom', window - (l.outputReserve ?? 0) - l.headroom, 'headroom');
  add('rawTail', l.rawTail, 'raw tail kept');
  add('reported', m.reportedTokens, 'reported');
  // Greedy rows, left to right: a label takes the first row whose last label is far enough to its left.
  const rowEnds: number[] = [];
  const lines: MeterLine[] = [...placed]
    .sort((a, b) => a.x - b.x)
    .map((l) => {
      let row = rowEnds.findIndex((end) => l.x - end >= LABEL_GAP);
      if (row < 0) row = rowEnds.push(l.x) - 1;
      else rowEnds[row] = l.x;
      return { ...l, row };
    });
  return { scale, segments, lines, over: window !== null && Math.max(m.total, m.reportedTokens ?? 0) > window };
}
