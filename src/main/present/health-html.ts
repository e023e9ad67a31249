import { createHash } from 'node:crypto';
import { aboveShare, type HealthBucket } from '../../shared/health/aggregate';
import { count, healthCharts, type HealthSeries, kilo } from '../../shared/health/charts';
import type { HealthReport } from '../../shared/health/report';
import type { SessionHealth } from '../../shared/health/row';

/*
 * `palimpsest report --html OUT`: one self-contained page. Charts are inline SVG; every bar links
 * to the section listing the sessions and compactions behind it, so the page is read and drilled
 * into with no script at all. Its Content-Security-Policy allows nothing but its own style sheet
 * (by hash): no script runs and nothing is fetched. Every string that came from a session
 * (projects, models, paths, ids, errors) is untrusted and escaped.
 */

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

/** Text for HTML content and attribute values (quoted): markup characters escaped, control characters dropped. */
export function esc(s: string): string {
  return s.replace(CONTROL, '').replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

const num = count;
const pct = (x: number | null): string => (x === null ? '—' : `${(x * 100).toFixed(1)} %`);

const ROW = 20;
const LABEL = 220;
const WIDTH = 720;

/**
 * A horizontal bar chart, one row per bucket; several series are stacked. Each bar links to the
 * bucket's drill-down section and has a title with its figures.
 */
function barChart(title: string, buckets: readonly HealthBucket[], series: readonly HealthSeries[], format: (n: number) => string): string {
  const totals = buckets.map((b) => series.reduce((a, s) => a + s.value(b), 0));
  const max = Math.max(1, ...totals);
  const plot = WIDTH - LABEL - 70;
  const height = buckets.length * ROW + 24;
  const rows = buckets.map((b, i) => {
    const y = i * ROW + 4;
    let x = LABEL;
    const bars = series
      .map((s) => {
        const v = s.value(b);
        const w = (v / max) * plot;
        const rect =
          v > 0
            ? `<rect x="${x.toFixed(1)}" y="${y}" width="${Math.max(1, w).toFixed(1)}" height="${ROW - 6}" fill="${s.color}"><title>${esc(`${b.key} — ${s.label}: ${format(v)}`)}</title></rect>`
            : '';
        x += w;
        return rect;
      })
      .join('');
    const key = b.key.length > 30 ? `…${b.key.slice(-29)}` : b.key;
    return `<a href="#b${i}"><text x="${LABEL - 6}" y="${y + ROW - 9}" text-anchor="end">${esc(key)}<title>${esc(b.key)}</title></text>${bars}<text x="${(x + 4).toFixed(1)}" y="${y + ROW - 9}" class="v">${esc(format(totals[i] ?? 0))}</text></a>`;
  });
  const legend =
    series.length > 1
      ? `<p class="legend">${series.map((s) => `<span><svg width="10" height="10" aria-hidden="true"><rect width="10" height="10" fill="${s.color}"/></svg> ${esc(s.label)}</span>`).join(' ')}</p>`
      : '';
  return `<figure><figcaption>${esc(title)}</figcaption>${legend}<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" role="img" aria-label="${esc(title)}">${rows.join('')}</svg></figure>`;
}

function sessionRows(rows: readonly SessionHealth[]): string {
  return rows
    .map(
      (s) =>
        `<tr><td class="p">${esc(s.path)}${s.sessionId && s.key !== s.path ? ` <small>--session ${esc(s.sessionId)}</small>` : ''}</td><td>${esc(s.day ?? '—')}</td><td>${esc(s.harness)}</td><td class="p">${esc(s.project ?? '—')}</td><td>${esc(s.models[0] ?? '—')}</td><td>${num(s.requests)}</td><td>${pct(aboveShare(s))}</td><td>${num(s.compactions.length)}</td><td>${kilo(s.peakContext)}</td><td>${num(s.cacheBreaks)}</td></tr>`,
    )
    .join('');
}

function drillDown(b: HealthBucket, i: number, byKey: ReadonlyMap<string, SessionHealth>): string {
  const sessions = b.sessionKeys.map((k) => byKey.get(k)).filter((s): s is SessionHealth => s !== undefined);
  const compactions = b.compactionRefs
    .map((ref) => {
      const s = byKey.get(ref.session);
      const c = s?.compactions.find((x) => x.id === ref.id);
      if (!s || !c) return '';
      return `<tr><td class="p">${esc(s.path)}</td><td>${esc(c.id)}</td><td>${esc(c.trigger)}</td><td>${esc(c.outcome ?? 'open')}${c.inferredFailed ? ' <b>inferred failed</b>' : ''}</td><td>${kilo(c.preTokens)}</td><td>${kilo(c.postTokens)}</td><td>${c.seq}</td></tr>`;
    })
    .join('');
  return `<section id="b${i}"><h3>${esc(b.key)}</h3><p>${num(b.sessions)} sessions, ${num(b.compactions)} compactions (${num(b.failed)} failed, ${num(b.inferredFailed)} inferred failed), ${pct(aboveShare(b))} of judged requests at or above the trigger. Open one with <code>palimpsest inspect PATH</code>.</p>
<table><thead><tr><th>session</th><th>day</th><th>harness</th><th>project</th><th>model</th><th>requests</th><th>≥trigger</th><th>compactions</th><th>peak</th><th>cache breaks</th></tr></thead><tbody>${sessionRows(sessions)}</tbody></table>
${compactions ? `<table><thead><tr><th>session</th><th>compaction</th><th>trigger</th><th>outcome</th><th>before</th><th>after</th><th>seq</th></tr></thead><tbody>${compactions}</tbody></table>` : ''}<p><a href="#top">↑ charts</a></p></section>`;
}

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}h1{font-size:1.4em}figure{margin:1em 0}figcaption{font-weight:600}
svg text{font:12px system-ui,sans-serif;fill:#222}svg text.v{fill:#555}svg a:hover rect{opacity:.75}.legend span{margin-right:1em}
table{border-collapse:collapse;margin:.5em 0}td,th{border-bottom:1px solid #ddd;padding:2px 8px;text-align:left;vertical-align:top}td.p{word-break:break-all;max-width:40em}section{margin-top:2em}`;

/** The whole page. */
export function renderHealthHtml(r: HealthReport): string {
  const byKey = new Map(r.sessions.map((s) => [s.key, s]));
  const bs = r.buckets;
  const styleHash = createHash('sha256').update(STYLE).digest('base64');
  const charts =
    bs.length === 0
      ? '<p>No session to report on.</p>'
      : healthCharts(r.by)
          .map((c) => barChart(c.title, bs, c.series, c.format))
          .join('\n');
  const rules = Object.entries(r.total.findings).sort(
    (a, b) => b[1].error + b[1].warning + b[1].info - (a[1].error + a[1].warning + a[1].info),
  );
  const findings = rules.length
    ? `<h2>Findings by rule</h2><table><thead><tr><th>rule</th><th>error</th><th>warning</th><th>info</th></tr></thead><tbody>${rules.map(([rule, s]) => `<tr><td>${esc(rule)}</td><td>${num(s.error)}</td><td>${num(s.warning)}</td><td>${num(s.info)}</td></tr>`).join('')}</tbody></table>`
    : '';
  const problems = r.problems.length
    ? `<h2>Not read (${num(r.problems.length)})</h2><ul>${r.problems.map((p) => `<li><span class="p">${esc(p.path)}</span>: ${esc(p.error)}</li>`).join('')}</ul>`
    : '';
  const t = r.total;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'sha256-${styleHash}'">
<meta name="referrer" content="no-referrer">
<title>Palimpsest — compaction health</title>
<style>${STYLE}</style></head>
<body id="top">
<h1>Compaction health, per ${esc(r.by)}${r.since ? ` since ${esc(r.since)}` : ''}</h1>
<p>${num(t.sessions)} sessions, ${num(t.requests)} requests, ${num(t.compactions)} compactions: ${num(t.failed)} failed, ${num(t.inferredFailed)} inferred failed; ${pct(aboveShare(t))} of requests with a reported size at or above the trigger; peak context ${kilo(t.peakContext)}; ${num(t.cacheBreaks)} prompt-cache breaks (${kilo(t.cacheBreakTokens)} tokens not read). Each bar links to the sessions and compactions behind it.</p>
${charts}
${findings}
<h2>Sessions and compactions behind each ${esc(r.by)}</h2>
${bs.map((b, i) => drillDown(b, i, byKey)).join('\n')}
${problems}
</body></html>
`;
}
