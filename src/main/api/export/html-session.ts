import { blocksText, hydrated } from '../session/text';
import { compactionDetail } from '../session/compaction';
import { eventsOfKind } from '../../../shared/model/event-log';
import { itemKind } from '../../../shared/model/item';
import type { Block } from '../../../shared/model/content';
import { blockIsElided } from '../../../shared/model/content';
import { requestInfo } from '../../../shared/replay/view';
import type { Where } from '../../../shared/redact/redactor';
import { exported, uncut, type ExportContext } from './context';
import { tokenChart } from './html-chart';
import { CSP, esc, num, STYLE } from './html-text';

/**
 * A session as one self-contained HTML file (docs/export.md): no script, no external resource, a
 * strict Content-Security-Policy, every session text escaped (and redacted when asked). Written
 * section by section to the sink: the raw history of a long session is never one string.
 */

/** Items whose full text is re-read from the source in one pass. */
const HYDRATE_BATCH = 256;

/** A session text, redacted and escaped, in a <pre>. */
function pre(ctx: ExportContext, text: string, where: Where): string {
  const t = exported(ctx, text, where);
  return `<pre>${esc(t.text)}${t.cut > 0 ? `\n<span class="mute">[… ${esc(num(t.cut))} more characters not exported]</span>` : ''}</pre>`;
}

/** A short session text (a name, an id, a message), redacted and escaped. */
const txt = (ctx: ExportContext, text: string, where: Where): string => esc(ctx.red.text(text, where));

/** The session's own title when the log has one, else the name of its file. */
export function sessionTitle(ctx: Pick<ExportContext, 'inspector' | 'path'>): string {
  for (const e of eventsOfKind(ctx.inspector.session.events, 'session')) if (e.title) return e.title;
  return ctx.path.split(/[\\/]/).filter(Boolean).pop() ?? ctx.path;
}

async function head(ctx: ExportContext): Promise<void> {
  const title = txt(ctx, sessionTitle(ctx), { place: 'document', field: 'title' });
  const s = ctx.inspector.session;
  const compactions = ctx.state.compactions.length;
  await ctx.sink.write(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${esc(CSP)}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title} — Palimpsest export</title>
<style>${STYLE}</style>
</head><body>
<header><h1>${title}</h1>
<p class="mute">${txt(ctx, ctx.path, { place: 'document', field: 'session path' })} · ${esc(s.format)} · branch ${txt(ctx, ctx.branch, { place: 'document', field: 'branch' })} · ${num(s.events.length)} events · ${num(ctx.state.items.length)} items · ${num(ctx.state.requests.length)} requests · ${num(compactions)} compaction${compactions === 1 ? '' : 's'}</p>
<p class="mute">Exported by Palimpsest. ${
    ctx.red.active
      ? 'Redacted before export: what the redaction rules matched reads [REDACTED:rule]. Redaction is pattern-based: a secret no rule knows is not redacted.'
      : 'Not redacted: every text is as the session holds it.'
  }</p>
</header>
<nav><a href="#tokens">Tokens</a><a href="#findings">Findings</a><a href="#compactions">Compactions</a><a href="#requests">Requests</a><a href="#envelope">System prompts and tools</a><a href="#history">Raw history</a></nav>
`);
}

async function tokens(ctx: ExportContext): Promise<void> {
  const points = ctx.state.requests.map((r) => ({
    index: r.index,
    tokens: requestInfo(r).reportedInputTokens,
    agent: r.purpose === 'agent',
    window: r.route.window ?? null,
  }));
  await ctx.sink.write(`<section id="tokens"><h2>Tokens</h2><div class="chart">${tokenChart(points)}</div></section>\n`);
}

async function findings(ctx: ExportContext): Promise<void> {
  const ds = ctx.inspector.diagnostics(ctx.branch);
  await ctx.sink.write(`<section id="findings"><h2>Findings (${num(ds.length)})</h2>\n`);
  if (ds.length === 0) await ctx.sink.write('<p class="mute">No findings.</p>');
  else {
    await ctx.sink.write('<table><tr><th>severity</th><th>rule</th><th>finding</th><th>where</th><th>events</th></tr>\n');
    for (const [i, d] of ds.entries()) {
      const where = { place: `finding ${i + 1} (${d.rule})`, field: 'message' };
      const loc = d.file ? `${txt(ctx, d.file, { ...where, field: 'file' })}${d.line ? `:${d.line}` : ''}` : '';
      await ctx.sink.write(
        `<tr><td class="${esc(d.severity)}">${esc(d.severity)}</td><td>${txt(ctx, d.rule, where)}</td><td>${txt(ctx, d.message, where)}</td><td>${loc}</td><td>${esc(d.seqs.slice(0, 12).join(', '))}${d.seqs.length > 12 ? ' …' : ''}</td></tr>\n`,
      );
    }
    await ctx.sink.write('</table>');
  }
  await ctx.sink.write('</section>\n');
}

async function compactions(ctx: ExportContext): Promise<void> {
  const all = ctx.state.compactions;
  await ctx.sink.write(`<section id="compactions"><h2>Compactions (${num(all.length)})</h2>\n`);
  if (all.length === 0) await ctx.sink.write('<p class="mute">No compaction on this branch.</p>');
  for (const c of all) {
    const d = await compactionDetail(ctx.inspector, ctx.branch, c.id);
    const place = `compaction ${c.id}`;
    const w = (field: string): Where => ({ place, field });
    const outcome = c.outcome ?? 'open (no end logged)';
    let h = `<details open><summary><b>${txt(ctx, c.id, w('id'))}</b> · ${esc(c.trigger)} · <span class="${c.outcome === 'committed' ? 'ok' : 'warning'}">${esc(outcome)}</span> · ${num(c.preTokens)} → ${num(c.postTokens)} tokens</summary>\n<table>`;
    h += `<tr><th>strategy</th><td>${c.strategy === null ? '<span class="mute">not logged</span>' : txt(ctx, c.strategy, w('strategy'))}</td></tr>`;
    h += `<tr><th>policy</th><td>${c.policy ? txt(ctx, JSON.stringify(c.policy), w('policy')) : '<span class="mute">not logged</span>'}</td></tr>`;
    h += `<tr><th>events</th><td>${num(c.startSeq)} – ${num(c.endSeq)}; replaced ${num(d.source.length)} item${d.source.length === 1 ? '' : 's'}</td></tr>`;
    if (c.fallback)
      h += `<tr><th>fallback</th><td>${txt(ctx, c.fallback.kind, w('fallback'))}${c.fallback.marker ? ' (with a visible marker)' : ''}</td></tr>`;
    if (c.error) h += `<tr><th>error</th><td class="error">${txt(ctx, c.error.message, w('error'))}</td></tr>`;
    h += '</table>\n';
    await ctx.sink.write(h);
    await ctx.sink.write(`<h3>Attempts (${num(d.summarizer.length)})</h3>`);
    if (d.summarizer.length === 0) await ctx.sink.write('<p class="mute">No summarizer call is logged.</p>');
    for (const [k, s] of d.summarizer.entries()) {
      const sw = (field: string): Where => ({ place: `${place}, attempt ${k + 1}`, field });
      await ctx.sink.write(
        `<p>${k + 1}. ${s.index !== null ? `<a href="#r${s.index}">request ${s.index}</a>` : `request ${txt(ctx, s.id, sw('id'))} on branch ${txt(ctx, s.branch, sw('branch'))}`} · ${s.model ? txt(ctx, s.model, sw('model')) : 'model not logged'} · finish ${s.finish ? txt(ctx, s.finish.raw, sw('finish')) : '–'} · output ${num(s.usage?.output)} tokens${s.error ? ` · <span class="error">${txt(ctx, s.error.message, sw('error'))}</span>` : ''}</p>`,
      );
      if (s.instruction)
        await ctx.sink.write(`<details><summary>instruction</summary>${pre(ctx, uncut(s.instruction), sw('instruction'))}</details>`);
    }
    for (const e of d.errors)
      await ctx.sink.write(`<p class="error">summary error at event ${e.seq}: ${txt(ctx, e.error.message, w('summary error'))}</p>`);
    for (const s of d.summaries) {
      await ctx.sink.write(`<h3>Summary (event ${s.seq}${s.finish ? `, finish ${txt(ctx, s.finish.raw, w('finish'))}` : ''})</h3>`);
      await ctx.sink.write(pre(ctx, uncut(s.text), w('summary')));
      if (s.text.truncated)
        await ctx.sink.write(
          `<p class="mute">The summary has ${num(s.text.chars)} characters; the first ${num(uncut(s.text).length)} are exported.</p>`,
        );
    }
    for (const k of d.checkpoints) {
      await ctx.sink.write(`<h3>Checkpoint ${txt(ctx, k.id, w('checkpoint id'))} (event ${k.seq})</h3>`);
      await ctx.sink.write(pre(ctx, uncut(k.text), w('checkpoint')));
    }
    if (d.survival) {
      const rates = Object.entries(d.survival.survival)
        .filter(([, r]) => r.total > 0)
        .map(([cat, r]) => `${esc(cat)} ${r.total - r.lost}/${r.total}`)
        .join(' · ');
      await ctx.sink.write(`<p><b>Survival</b> of what it replaced (kept/total anchors): ${rates || 'no anchors'}</p>`);
    }
    if (d.diagnostics.length > 0) {
      await ctx.sink.write('<h3>Findings on it</h3><ul>');
      for (const f of d.diagnostics)
        await ctx.sink.write(
          `<li class="${esc(f.severity)}">${esc(f.severity)} ${txt(ctx, f.rule, w('finding'))}: ${txt(ctx, f.message, w('finding'))}</li>`,
        );
      await ctx.sink.write('</ul>');
    }
    await ctx.sink.write('</details>\n');
  }
  await ctx.sink.write('</section>\n');
}

async function requests(ctx: ExportContext): Promise<void> {
  const { state } = ctx;
  await ctx.sink.write(
    `<section id="requests"><h2>Requests (${num(state.requests.length)})</h2><p class="mute">Each request's model view: the items the model saw, in order (each links to its text in the raw history; masked items in colour, derived ones — checkpoints, pruned results — in bold), and what became of every earlier raw item.</p>\n`,
  );
  for (const r of state.requests) {
    const info = requestInfo(r);
    const place = `request ${r.index}`;
    const view = ctx.inspector.view(r.index, ctx.branch);
    const fates = new Map<string, number>();
    for (const f of ctx.inspector.fates(r.index, ctx.branch)) {
      const key = f.fate.fate === 'summarised' ? `summarised by ${f.fate.compactionId}` : f.fate.fate;
      fates.set(key, (fates.get(key) ?? 0) + 1);
    }
    let h = `<details id="r${r.index}"><summary>#${r.index} · ${txt(ctx, r.purpose, { place, field: 'purpose' })}${r.compactionId ? ` (${txt(ctx, r.compactionId, { place, field: 'compaction' })})` : ''} · ${r.route.model ? txt(ctx, r.route.model, { place, field: 'model' }) : 'model not logged'} · ${num(info.reportedInputTokens)} tokens in · finish ${r.finish ? txt(ctx, r.finish.raw, { place, field: 'finish' }) : '–'}${r.error ? ' · <span class="error">error</span>' : ''}</summary>\n`;
    if (r.error) h += `<p class="error">${txt(ctx, r.error.message, { place, field: 'error' })}</p>`;
    h += `<p>system prompt: ${r.envelope.systemSeq !== null ? `<a href="#h${r.envelope.systemSeq}">event ${r.envelope.systemSeq}</a>` : r.envelope.system === null ? 'not recorded by the log' : 'none'} · tools: ${r.envelope.toolsSeq !== null ? `<a href="#h${r.envelope.toolsSeq}">event ${r.envelope.toolsSeq}</a>` : 'not recorded'}</p>`;
    if (view) {
      h += `<ol class="v" start="1">`;
      for (const it of view.items) {
        const rec = state.itemById.get(it.id);
        const cls = it.rendition === 'masked' ? 'masked' : it.derivation ? 'derived' : '';
        h += `<li${cls ? ` class="${cls}"` : ''}>${rec ? `<a href="#i${rec.index}">#${rec.index}</a>` : '?'} ${esc(it.kind)}${it.rendition === 'masked' ? ' (masked)' : ''}</li>`;
      }
      h += '</ol>';
      for (const u of view.unknowns) h += `<p class="mute">unknown: ${txt(ctx, u, { place, field: 'unknown' })}</p>`;
    }
    const fateText = [...fates].map(([k, n]) => `${num(n)} ${txt(ctx, k, { place, field: 'fate' })}`).join(' · ');
    h += `<p class="mute">raw items so far: ${fateText || 'none'}</p></details>\n`;
    await ctx.sink.write(h);
  }
  await ctx.sink.write('</section>\n');
}

async function envelope(ctx: ExportContext): Promise<void> {
  const seqs = new Set<number>();
  for (const r of ctx.state.requests) {
    if (r.envelope.systemSeq !== null) seqs.add(r.envelope.systemSeq);
    if (r.envelope.toolsSeq !== null) seqs.add(r.envelope.toolsSeq);
  }
  await ctx.sink.write('<section id="envelope"><h2>System prompts and tools</h2>\n');
  if (seqs.size === 0) await ctx.sink.write('<p class="mute">The log records no system prompt and no tools.</p>');
  for (const seq of [...seqs].sort((a, b) => a - b)) {
    const e = await hydrated(ctx.inspector.session, seq);
    const place = `header event ${seq}`;
    await ctx.sink.write(`<div id="h${seq}"><h3>Event ${seq}</h3>`);
    if (e.kind === 'header' && e.system) await ctx.sink.write(pre(ctx, blocksText(e.system), { place, field: 'system prompt' }));
    if (e.kind === 'header' && e.tools) {
      await ctx.sink.write(`<details><summary>${num(e.tools.length)} tools</summary>`);
      for (const t of e.tools) {
        await ctx.sink.write(
          `<p><b>${txt(ctx, t.name, { place, field: 'tool name' })}</b> ${t.description ? txt(ctx, t.description, { place, field: `tool ${t.name} description` }) : ''}</p>`,
        );
        if (t.inputSchema !== undefined)
          await ctx.sink.write(pre(ctx, JSON.stringify(t.inputSchema, null, 1), { place, field: `tool ${t.name} input schema` }));
      }
      await ctx.sink.write('</details>');
    }
    await ctx.sink.write('</div>\n');
  }
  await ctx.sink.write('</section>\n');
}

/**
 * Blocks whose text memory holds only a preview of (the source could not be re-read): each preview
 * ends at its last whitespace, so that a key the preview cut is not exported in part.
 */
function previewOnly(blocks: readonly Block[]): readonly Block[] {
  const trim = (t: string): string => uncut({ text: t, truncated: true });
  return blocks.map((b): Block => {
    if ((b.type === 'text' || b.type === 'reasoning') && (b.elided ?? 0) > 0) return { ...b, text: trim(b.text) };
    if (b.type === 'tool_call' && (b.elided ?? 0) > 0) return { ...b, input: trim(b.input) };
    if (b.type === 'tool_result' && blockIsElided(b))
      return {
        ...b,
        content: previewOnly(b.content).filter((c) => c.type !== 'tool_call' && c.type !== 'tool_result') as typeof b.content,
      };
    return b;
  });
}

async function history(ctx: ExportContext): Promise<void> {
  const { state, inspector } = ctx;
  const session = inspector.session;
  const last = state.requests.length - 1;
  const fateOf = new Map<string, string>();
  if (last >= 0)
    for (const f of inspector.fates(last, ctx.branch))
      fateOf.set(f.id, f.fate.fate === 'summarised' ? `summarised by ${f.fate.compactionId}` : f.fate.fate);
  await ctx.sink.write(
    `<section id="history"><h2>Raw history (${num(state.items.length)} items)</h2><p class="mute">Every item of the branch in the order it was created, with its whole text${last >= 0 ? ' and its fate at the last request' : ''}.</p>\n`,
  );
  for (let from = 0; from < state.items.length; from += HYDRATE_BATCH) {
    const batch = state.items.slice(from, from + HYDRATE_BATCH);
    const seqs: number[] = [];
    for (const rec of batch) {
      if (rec.item.blocks.some(blockIsElided)) seqs.push(rec.seq);
      for (const x of rec.extensions) if (x.blocks.some(blockIsElided)) seqs.push(x.seq);
    }
    const whole = new Map<number, readonly Block[]>();
    if (seqs.length > 0) {
      const events = await session.hydrateMany(seqs).catch(() => null);
      events?.forEach((e, i) => {
        // An extension is an item event too (op: extend): its blocks are the ones it adds.
        if (e.kind === 'item') whole.set(seqs[i] as number, e.item.blocks);
      });
    }
    let h = '';
    for (const rec of batch) {
      const blocks: Block[] = [...(whole.get(rec.seq) ?? previewOnly(rec.item.blocks))];
      for (const x of rec.extensions) blocks.push(...(whole.get(x.seq) ?? previewOnly(x.blocks)));
      const partial = blocks.some(blockIsElided);
      const place = `item #${rec.index}`;
      const loc = session.loc(rec.seq);
      const file = loc ? session.files[loc.file]?.path : undefined;
      const fate = fateOf.get(rec.id);
      h += `<article id="i${rec.index}"><h4>#${rec.index} ${esc(rec.item.role)} · ${esc(itemKind(rec.item))} · id ${txt(ctx, rec.id, { place, field: 'id' })} · event ${rec.seq}${file ? ` · ${txt(ctx, file, { place, field: 'file' })}:${loc?.line ?? '?'}` : ''}${fate ? ` · <span class="tag">${txt(ctx, fate, { place, field: 'fate' })}</span>` : ''}</h4>`;
      if (partial)
        h += '<p class="warning">The source could not be re-read: only the preview held in memory is shown, up to its last whole word.</p>';
      h += pre(ctx, blocksText(blocks), { place, field: 'text' });
      h += '</article>\n';
    }
    await ctx.sink.write(h);
  }
  await ctx.sink.write('</section>\n');
}

export async function writeSessionHtml(ctx: ExportContext): Promise<void> {
  await head(ctx);
  await tokens(ctx);
  await findings(ctx);
  await compactions(ctx);
  await requests(ctx);
  await envelope(ctx);
  await history(ctx);
  await ctx.sink.write(
    '<footer class="mute"><p>Palimpsest export. The page holds no script and loads nothing.</p></footer></body></html>\n',
  );
}
