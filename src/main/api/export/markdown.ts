import { compactionDetail } from '../session/compaction';
import type { Where } from '../../../shared/redact/redactor';
import { exported, uncut, type ExportContext } from './context';
import { grouped } from '../../../shared/grouped';

/**
 * One compaction as Markdown, to paste into a pull request or an issue (docs/export.md): trigger,
 * tokens before and after, each summarizer attempt with its outcome and finish reason, the summary
 * in a fenced block, the findings on it and what survived of what it replaced.
 */

/** A fence longer than any run of backticks in the text, so the text cannot close it. */
export function fence(text: string): string {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
}

/** Markdown-inert inline text: one line, and the characters that would start markup escaped. */
function inline(text: string): string {
  return text
    .replace(/[\r\n]+/g, ' ')
    .replace(/[\\`*_[\]<>|#!~]/g, (c) => `\\${c}`)
    .replace(/&/g, '&amp;');
}

const n = (x: number | null | undefined): string => (x === null || x === undefined ? 'not logged' : grouped(x));

export async function writeCompactionMarkdown(ctx: ExportContext, id: string): Promise<void> {
  const d = await compactionDetail(ctx.inspector, ctx.branch, id);
  const c = ctx.state.compactions.find((x) => x.id === id);
  const place = `compaction ${id}`;
  const t = (text: string, field: string): string => inline(ctx.red.text(text, { place, field }));
  const block = (text: string, where: Where): string => {
    const e = exported(ctx, text, where);
    const f = fence(e.text);
    return `${f}text\n${e.text}\n${f}\n${e.cut > 0 ? `\n_${n(e.cut)} more characters not exported._\n` : ''}`;
  };
  const out: string[] = [];
  // A code span shows its text as is: only backticks and line ends must go.
  out.push(`### Compaction \`${ctx.red.text(id, { place, field: 'id' }).replace(/[`\r\n]/g, '')}\``);
  out.push('');
  out.push(`- Session: ${t(ctx.path, 'session path')} (branch ${t(ctx.branch, 'branch')})`);
  out.push(`- Trigger: ${d.trigger}${d.projectedTokens !== null ? ` (projected ${n(d.projectedTokens)} tokens)` : ''}`);
  out.push(`- Tokens: ${n(d.preTokens)} → ${n(c?.postTokens)}`);
  out.push(`- Outcome: ${c?.outcome ?? 'open (no end logged)'}${c?.fallback ? `, fallback ${t(c.fallback.kind, 'fallback')}` : ''}`);
  out.push(`- Strategy: ${c?.strategy ? t(c.strategy, 'strategy') : 'not logged'}`);
  if (d.policy) out.push(`- Policy: ${t(JSON.stringify(d.policy), 'policy')}`);
  out.push(`- Replaced: ${n(d.source.length)} items`);
  if (c?.error) out.push(`- Error: ${t(c.error.message, 'error')}`);
  out.push('');
  out.push(`#### Attempts (${d.summarizer.length})`);
  out.push('');
  if (d.summarizer.length === 0) out.push('No summarizer call is logged.');
  d.summarizer.forEach((s, i) => {
    const parts = [
      s.index !== null ? `request ${s.index}` : `request ${t(s.id, 'attempt id')} on branch ${t(s.branch, 'attempt branch')}`,
      s.model ? t(s.model, 'model') : 'model not logged',
      `finish ${s.finish ? `${t(s.finish.raw, 'finish')} (${s.finish.reason})` : 'not logged'}`,
      `output ${n(s.usage?.output)} tokens`,
    ];
    if (s.error) parts.push(`error: ${t(s.error.message, 'attempt error')}`);
    out.push(`${i + 1}. ${parts.join(' · ')}`);
  });
  for (const e of d.errors) out.push(`- Summary error at event ${e.seq}: ${t(e.error.message, 'summary error')}`);
  out.push('');
  d.summaries.forEach((s) => {
    out.push(`#### Summary (event ${s.seq}${s.finish ? `, finish ${t(s.finish.raw, 'finish')}` : ''})`);
    out.push('');
    out.push(block(uncut(s.text), { place, field: 'summary' }));
    if (s.text.truncated) out.push(`_The summary has ${n(s.text.chars)} characters; the first ${n(uncut(s.text).length)} are shown._\n`);
  });
  if (d.summaries.length === 0) out.push('_No summary text is logged._\n');
  if (d.diagnostics.length > 0) {
    out.push(`#### Findings (${d.diagnostics.length})`);
    out.push('');
    for (const f of d.diagnostics) out.push(`- **${f.severity}** \`${f.rule.replace(/`/g, '')}\`: ${t(f.message, 'finding')}`);
    out.push('');
  }
  if (d.survival) {
    out.push('#### Survival of what it replaced');
    out.push('');
    out.push('| category | kept | total |');
    out.push('|---|---:|---:|');
    for (const [cat, r] of Object.entries(d.survival.survival)) if (r.total > 0) out.push(`| ${cat} | ${r.total - r.lost} | ${r.total} |`);
    out.push('');
    out.push(
      `Replaced ${n(d.survival.replaced)} items, kept ${n(d.survival.kept)}; ${n(d.survival.lostTotal)} anchors lost${d.survival.opaque ? ' (part of the summary is encrypted: what it kept is not counted)' : ''}.`,
    );
    out.push('');
  }
  out.push('_Exported by Palimpsest' + (ctx.red.active ? '; redacted (pattern-based)._' : '._'));
  await ctx.sink.write(`${out.join('\n')}\n`);
}
