import { escapeHtml as esc, int } from './format';
import { factsFilesList, matrixTable, missedFacts, missesList, regressionsTable } from './html-tables';
import { NOT_PROVEN, overallCells, traceCells, verdict, type ReportInput } from './input';
import { costScatter, recallBars } from './svg';

/*
 * One self-contained HTML page: inline CSS and inline SVG, no script, nothing fetched. A
 * Content-Security-Policy forbids scripts and remote loads outright, so even a missed escape could
 * not run code; every string from a trace, a facts file or a spec is escaped all the same.
 */

const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1200px;padding:0 16px;color:#1d2330;background:#fff}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #dde2ea;padding-bottom:4px}
table{border-collapse:collapse;width:100%;margin:8px 0;font-size:13px}th,td{border:1px solid #dde2ea;padding:4px 6px;text-align:left;vertical-align:top}
thead th{background:#f3f5f9;font-weight:600}td.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
.regressed{background:#fdecec}.miss{background:#fdecec}.good{color:#1f7a4d}.small{color:#5b6577;font-size:12px}
.badge{display:inline-block;border-radius:3px;padding:0 4px;font-size:11px;font-weight:600}.badge.bad{background:#c23b3b;color:#fff}.badge.mock{background:#e8e1f5;color:#5a3d8c}
.verdict{font-size:15px;font-weight:600;padding:8px 12px;border-radius:4px;margin:12px 0}.verdict.ok{background:#e6f4ec;color:#1f7a4d}.verdict.bad{background:#fdecec;color:#a12b2b}
.note{background:#fff8e5;border-left:3px solid #d9a400;padding:6px 10px;margin:8px 0}
svg{max-width:100%;height:auto;display:block;margin:8px 0}svg .grid{stroke:#e3e7ee}svg .tick,svg .legend,svg .point,svg .axis,svg .na{font-size:11px;fill:#5b6577}
svg .label{font-size:12px;fill:#1d2330}svg .whisker{stroke:#1d2330;stroke-width:1.5;fill:none}svg circle.mock{stroke:#5a3d8c;stroke-width:2;stroke-dasharray:2 2}
ul.misses{padding-left:18px}.scroll{overflow-x:auto}code{background:#f3f5f9;padding:0 3px;border-radius:3px}details{margin:8px 0}summary{cursor:pointer;font-weight:600}
`;

export function reportHtml(input: ReportInput): string {
  const v = verdict(input);
  const agg = input.aggregate;
  const overall = overallCells(agg);
  const scatter = costScatter(overall, agg.models);
  const body: string[] = [];
  body.push(`<h1>Eval: ${esc(input.spec.name)}</h1>`);
  body.push(
    `<p class="small">Spec <code>${esc(input.spec.file)}</code> · ${int(agg.runs)} runs · ${agg.traces.length} trace${agg.traces.length === 1 ? '' : 's'} · generated ${esc(input.generatedAt)}${input.shard ? ` · shard ${input.shard.k}/${input.shard.n} (partial)` : ''}</p>`,
  );
  if (input.spec.description) body.push(`<p>${esc(input.spec.description)}</p>`);
  body.push(`<div class="verdict ${v.ok ? 'ok' : 'bad'}">${v.ok ? '✓' : '✗'} ${esc(v.text)}</div>`);
  if (input.stopped) body.push(`<div class="note"><strong>Stopped early.</strong> ${esc(input.stopped)}</div>`);
  if (overall.some((c) => c.mock))
    body.push(
      '<div class="note">Cells marked <span class="badge mock">mock</span> ran against the mock provider: scripted replies, not a model. They test transport, budgets and recovery; their scores say nothing about model quality.</div>',
    );
  for (const n of input.notes ?? []) body.push(`<div class="note">${esc(n)}</div>`);

  body.push('<h2>Matrix (all traces)</h2>', matrixTable(input, overall));
  body.push(
    '<p class="small">Quality: mean ± sample stddev over repeats (hover for min/max); — = not measured (no confirmed fact of that kind, or every run failed). Structural errors are the run\'s diagnostics, kept apart from quality. Definitions in docs/eval.md.</p>',
  );
  body.push(
    '<h2>Recall by strategy and model</h2>',
    recallBars(overall, agg.strategies, agg.models),
    '<p class="small">Bar: mean recall over repeats. Whiskers: lowest and highest per-repeat recall.</p>',
  );
  body.push('<h2>Cost against recall</h2>', scatter.svg);
  if (scatter.unplaced.length > 0)
    body.push(
      `<p class="small">Not placed (cost unknown — no prices pinned — or recall not measured): ${scatter.unplaced.map((c) => esc(`${c.strategy} × ${c.model}`)).join(', ')}.</p>`,
    );
  body.push('<h2>Threshold misses</h2>', missesList(input));
  body.push('<h2>Against the baseline</h2>', regressionsTable(input));
  body.push('<h2>Per trace</h2>');
  for (const t of agg.traces) body.push(`<details><summary>${esc(t)}</summary>${matrixTable(input, traceCells(agg, t))}</details>`);
  body.push('<h2>Facts most often missed</h2>', missedFacts(input));
  body.push('<h2>Facts files</h2>', factsFilesList(input));
  body.push('<h2>What these scores do not prove</h2>', `<ul>${NOT_PROVEN.map((s) => `<li>${esc(s)}</li>`).join('')}</ul>`);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${CSP}"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer">
<title>${esc(`Eval: ${input.spec.name}`)}</title><style>${CSS}</style></head>
<body>${body.join('\n')}</body></html>
`;
}
