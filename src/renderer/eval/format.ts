import type { EvalCellOutcome, EvalJob } from '../../shared/api/contract';

/** Words and numbers of the eval view. Texts from traces, facts and specs are shown as text only. */

export const baseName = (p: string): string => p.split(/[\\/]/).pop() ?? p;

export const targetText = (t: { readonly compaction: string } | { readonly request: number }): string =>
  'compaction' in t ? `compaction ${t.compaction.length > 14 ? `${t.compaction.slice(0, 12)}…` : t.compaction}` : `request #${t.request}`;

export const pct1 = (r: number | null): string => (r === null ? '—' : `${(r * 100).toFixed(1)} %`);

/** "truncate × none #1: fallback · recall 5.9 %" */
export function cellOutcomeText(c: EvalCellOutcome): string {
  const who = `${c.strategy} × ${c.model}${c.fault ? ` (${c.fault})` : ''} #${c.repeat + 1}`;
  if (c.error) return `${who}: could not run — ${c.error}`;
  return `${who}: ${c.outcome ?? 'cancelled'}${c.recall === null ? '' : ` · recall ${pct1(c.recall)}`}`;
}

export function progressText(job: EvalJob): string {
  if (job.total === null) return job.state === 'running' ? 'preparing: loading the traces, facts and scripts…' : 'no cell ran';
  return `${job.done}/${job.total} cell${job.total === 1 ? '' : 's'}`;
}
