import { aboveShare, HEALTH_OUTCOMES, type HealthBucket } from './aggregate';
import { grouped } from '../grouped';

/*
 * The health report's charts, as data: what each one plots per bucket, in which colours, and how a
 * figure reads. The HTML page (src/main/present/health-html.ts) and the app's Health tab
 * (src/renderer/library/HealthView.tsx) draw the same charts from these.
 */

export interface HealthSeries {
  readonly label: string;
  readonly color: string;
  readonly value: (b: HealthBucket) => number;
}

export interface HealthChart {
  readonly id: string;
  readonly title: string;
  /** Stacked, in this order. */
  readonly series: readonly HealthSeries[];
  readonly format: (n: number) => string;
}

export const OUTCOME_COLOR: Readonly<Record<(typeof HEALTH_OUTCOMES)[number], string>> = {
  committed: '#3a7d44',
  rejected: '#d98e04',
  failed: '#c0392b',
  fallback: '#8e44ad',
  cancelled: '#7f8c8d',
  open: '#bdc3c7',
};

export const count = (n: number): string => grouped(Math.round(n));
export const kilo = (n: number | null): string =>
  n === null ? '—' : n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(0)}k` : count(n);

export function healthCharts(by: string): HealthChart[] {
  return [
    {
      id: 'outcomes',
      title: `Compactions by outcome, per ${by}`,
      series: HEALTH_OUTCOMES.map((o) => ({ label: o, color: OUTCOME_COLOR[o], value: (b: HealthBucket) => b.byOutcome[o] ?? 0 })),
      format: count,
    },
    {
      id: 'failures',
      title: `Failed and inferred-failed compactions, per ${by}`,
      series: [
        { label: 'failed (failed, rejected, fallback)', color: '#c0392b', value: (b) => b.failed },
        { label: 'inferred failed', color: '#e67e22', value: (b) => b.inferredFailed },
      ],
      format: count,
    },
    {
      id: 'trigger',
      title: `Share of requests at or above the compaction trigger, per ${by}`,
      series: [{ label: 'at or above', color: '#2c7fb8', value: (b) => (aboveShare(b) ?? 0) * 100 }],
      format: (n) => `${n.toFixed(1)} %`,
    },
    {
      id: 'sizes',
      title: `Mean context tokens before and after a compaction (where the log records both), per ${by}`,
      series: [
        { label: 'after', color: '#3a7d44', value: (b) => (b.measured ? b.tokensAfter / b.measured : 0) },
        { label: 'removed', color: '#a6d96a', value: (b) => (b.measured ? (b.tokensBefore - b.tokensAfter) / b.measured : 0) },
      ],
      format: kilo,
    },
    {
      id: 'peak',
      title: `Peak context, per ${by}`,
      series: [{ label: 'peak', color: '#5e3c99', value: (b) => b.peakContext ?? 0 }],
      format: kilo,
    },
    {
      id: 'cache',
      title: `Prompt-cache reads and tokens lost to cache breaks, per ${by}`,
      series: [
        { label: 'read from the cache', color: '#1b9e77', value: (b) => b.cacheReadTokens },
        { label: 'not read (breaks)', color: '#d95f02', value: (b) => b.cacheBreakTokens },
      ],
      format: kilo,
    },
  ];
}
