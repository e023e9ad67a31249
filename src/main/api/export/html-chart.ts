import { esc, num } from './html-text';

/**
 * The token chart of an export, as inline SVG (no script, no image file): one bar per request of
 * the input tokens its provider reported, summarizer calls in another colour, and the window as a
 * dashed line where the log gives one. A request with no reported usage has no bar (never guessed).
 */

export interface ChartPoint {
  readonly index: number;
  /** Input + cache reads + cache writes as reported; null when the log has no usage. */
  readonly tokens: number | null;
  readonly agent: boolean;
  readonly window: number | null;
}

const W = 960;
const H = 220;
const PAD = 28;

export function tokenChart(points: readonly ChartPoint[]): string {
  const known = points.filter((p) => p.tokens !== null);
  if (known.length === 0) return '<p class="mute">No request of this branch reports its token usage: there is nothing to chart.</p>';
  const window = Math.max(0, ...points.map((p) => p.window ?? 0));
  const most = Math.max(...known.map((p) => p.tokens as number), 1);
  // The window is drawn when the requests come near it; far above them, it would flatten every bar.
  const top = window > 0 && window <= most * 2 ? Math.max(window, most) : most;
  const step = (W - 2 * PAD) / Math.max(1, points.length);
  const y = (v: number): number => H - PAD - ((H - 2 * PAD) * v) / top;
  const bars = (agent: boolean): string =>
    points
      .filter((p) => p.tokens !== null && p.agent === agent)
      .map((p) => `M${(PAD + (p.index + 0.5) * step).toFixed(1)} ${H - PAD}V${y(p.tokens as number).toFixed(1)}`)
      .join('');
  const width = Math.max(0.5, Math.min(12, step * 0.8)).toFixed(2);
  const windowLine =
    window > 0 && window <= top
      ? `<path d="M${PAD} ${y(window).toFixed(1)}H${W - PAD}" stroke="currentColor" stroke-dasharray="4 4" opacity=".5"/><text x="${W - PAD}" y="${(y(window) - 4).toFixed(1)}" text-anchor="end" font-size="11" fill="currentColor">window ${esc(num(window))}</text>`
      : '';
  const missing = points.length - known.length;
  return `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="Reported input tokens per request">
<path d="M${PAD} ${H - PAD}H${W - PAD}" stroke="currentColor" opacity=".4"/>
<path d="${bars(true)}" stroke="#0969da" stroke-width="${width}"/>
<path d="${bars(false)}" stroke="#bf8700" stroke-width="${width}"/>
${windowLine}
<text x="${PAD}" y="14" font-size="11" fill="currentColor">${esc(num(top))} tokens</text>
<text x="${PAD}" y="${H - 8}" font-size="11" fill="currentColor">request 0</text>
<text x="${W - PAD}" y="${H - 8}" text-anchor="end" font-size="11" fill="currentColor">request ${points.length - 1}</text>
</svg>
<p class="mute">Input tokens as each provider reported them (input + cache reads + cache writes): <span style="color:#0969da">agent requests</span>, <span style="color:#bf8700">summarizer and other calls</span>.${window > top ? ` The window, ${num(window)} tokens, is above the top of the chart.` : ''}${missing > 0 ? ` ${num(missing)} request${missing === 1 ? '' : 's'} report no usage and ha${missing === 1 ? 's' : 've'} no bar.` : ''}</p>`;
}
