#!/usr/bin/env node
// Survival rates of compaction summaries on the corpus of real sessions, per harness and category.
//
//   node scripts/corpus-forensics.mjs [FILE|DIR…]   a Markdown table per harness on stdout
//
// Without FILE|DIR: the committed corpus (fixtures/corpus/), the real logs of fixtures/claude-code/
// and fixtures/codex/, and the fetched sessions in .corpus/ when scripts/fetch-corpus.mjs has run.
// Runs the built CLI's `forensics --json` (node scripts/build-cli.mjs first). Rates are pooled:
// every anchor of every measured compaction of a harness counts once. A compaction whose summary is
// encrypted (Codex's remote compaction) is counted apart: only what it kept on the view was read.

import { execFile } from 'node:child_process';
import { corpusFiles, walk } from './corpus-files.mjs';

const BIN = 'bin/palimpsest.js';
const CATEGORIES = ['paths', 'commands', 'identifiers', 'urls', 'errors', 'numbers', 'constraints', 'tasks', 'decisions'];
// The public measurement of 43 Claude Code compactions, for comparison (— where it gives none).
const PUBLIC = { paths: '≈ 10 %', commands: '≈ 0.2 %', numbers: '≈ 2 %', decisions: '≈ 77 %' };

function forensics(file) {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, 'forensics', file, '--json'], { maxBuffer: 256 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) {
        process.stderr.write(`corpus-forensics: ${file}: ${(stderr || String(err)).split('\n')[0]}\n`);
        resolve(null);
        return;
      }
      resolve(JSON.parse(stdout));
    });
  });
}

/** The harness a session comes from, by the folder the corpus keeps it in. */
const harnessOf = (file) => (/(^|\/)codex\//.test(file) ? 'codex' : /(^|\/)claude-code\//.test(file) ? 'claude-code' : 'other');

const args = process.argv.slice(2);
const files = args.length > 0 ? args.flatMap(walk) : corpusFiles();
const groups = new Map();
for (const f of files) {
  const j = await forensics(f);
  for (const c of j?.compactions ?? []) {
    const key = `${harnessOf(f)}${c.encrypted ? ' (summary encrypted: kept items only)' : ''}`;
    const g = groups.get(key) ?? {
      compactions: 0,
      sessions: new Set(),
      sums: Object.fromEntries(CATEGORIES.map((k) => [k, { total: 0, verbatim: 0, normalised: 0 }])),
    };
    g.compactions++;
    g.sessions.add(f);
    for (const k of CATEGORIES) {
      const r = c.survival[k];
      g.sums[k].total += r.total;
      g.sums[k].verbatim += r.verbatim;
      g.sums[k].normalised += r.normalised;
    }
    groups.set(key, g);
  }
}
const pct = (n, d) => (d === 0 ? '—' : `${Math.round((100 * n) / d)} %`);
const out = [];
for (const [key, g] of [...groups.entries()].sort()) {
  out.push(
    `### ${key}: ${g.compactions} compaction${g.compactions === 1 ? '' : 's'} in ${g.sessions.size} session${g.sessions.size === 1 ? '' : 's'}`,
    '',
  );
  out.push('| category | anchors | verbatim | normalised | survived | public measurement |', '|---|---|---|---|---|---|');
  for (const k of CATEGORIES) {
    const s = g.sums[k];
    out.push(
      `| ${k} | ${s.total} | ${pct(s.verbatim, s.total)} | ${pct(s.normalised, s.total)} | ${pct(s.verbatim + s.normalised, s.total)} | ${key === 'claude-code' ? (PUBLIC[k] ?? '—') : '—'} |`,
    );
  }
  out.push('');
}
process.stdout.write(`${out.join('\n')}\nFrom ${files.length} sessions.\n`);
