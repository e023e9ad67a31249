import type { Stat } from '../../../shared/eval/stats';
import { grouped } from '../../../shared/grouped';

/*
 * Number formatting and escaping shared by the Markdown and HTML reports. Every string that comes
 * from a trace, a facts file or a spec goes through escapeHtml (HTML) or escapeMarkdown (Markdown):
 * labels and fact texts are data, never markup.
 */

export const pct = (x: number | null | undefined): string => (x === null || x === undefined ? '—' : `${(x * 100).toFixed(1)} %`);

/** "92.9 % ± 1.2" over repeats; "—" when not measured. */
export function pctStat(s: Stat | null): string {
  if (s === null) return '—';
  return s.n > 1 ? `${pct(s.mean)} ± ${(s.stddev * 100).toFixed(1)}` : pct(s.mean);
}

export function usd(x: number | null): string {
  if (x === null) return 'unknown';
  if (x === 0) return '$0';
  return x < 0.01 ? `$${x.toFixed(5)}` : `$${x.toFixed(3)}`;
}

export function ms(x: number | null): string {
  if (x === null) return '—';
  return x >= 10_000 ? `${(x / 1000).toFixed(1)} s` : `${Math.round(x)} ms`;
}

export const int = (n: number): string => grouped(n);

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] as string);
}

/**
 * Markdown that renders as the literal text: backslash-escapes Markdown punctuation, turns < and >
 * into entities (GitHub would render raw HTML), and flattens newlines so a table row stays one row.
 */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/[\\`*_{}[\]()#+!|~]/g, (c) => `\\${c}`)
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\r?\n/g, ' ');
}
