#!/usr/bin/env node
// Prompt-cache breaks on the corpus of real sessions (scripts/corpus-files.mjs), by harness and cause.
//
//   node scripts/corpus-cache-breaks.mjs          prints the tables
//   node scripts/corpus-cache-breaks.mjs --docs   writes them into the section "Prompt-cache breaks on
//        real sessions" of docs/forensics.md
//
// Runs the built CLI (`tokens --json --estimate`: the breaks come from the provider's usage, not
// from local counts, so counting is skipped). Costs are in tokens: prices are never assumed.

import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { corpusFiles } from './corpus-files.mjs';

const BIN = 'bin/palimpsest.js';
const DOCS = 'docs/forensics.md';
const SECTION = '## Prompt-cache breaks on real sessions';
const CAUSES = ['ttl', 'model', 'system', 'tools', 'compaction', 'masked', 'rewind', 'unexplained'];

function tokens(file) {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, 'tokens', file, '--json', '--estimate'], { maxBuffer: 512 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err && err.code !== 1) {
        process.stderr.write(`corpus-cache-breaks: ${file}: ${(stderr || String(err)).split('\n')[0]}\n`);
        resolve(null);
        return;
      }
      resolve(JSON.parse(stdout));
    });
  });
}

const fmt = (n) => Math.round(n).toLocaleString('en-US');
const pct = (a, b) => (b > 0 ? `${((100 * a) / b).toFixed(1)} %` : '—');

const harnesses = new Map();
const causes = new Map();
const files = corpusFiles();
let sessions = 0;
for (const file of files) {
  const j = await tokens(file);
  if (!j || !Array.isArray(j.requests)) continue;
  sessions++;
  const h = harnesses.get(j.format) ?? { sessions: 0, requests: 0, prompt: 0, breaks: 0, tokens: 0, withBreak: 0 };
  h.sessions++;
  let any = false;
  for (const r of j.requests) {
    if (r.reportedTokens === null) continue;
    h.requests++;
    h.prompt += r.reportedTokens;
    const b = r.cacheBreak;
    if (!b) continue;
    any = true;
    h.breaks++;
    h.tokens += b.tokens;
    const c = causes.get(`${j.format}\u0000${b.cause}`) ?? { count: 0, certain: 0, tokens: 0 };
    c.count++;
    if (b.certain) c.certain++;
    c.tokens += b.tokens;
    causes.set(`${j.format}\u0000${b.cause}`, c);
  }
  if (any) h.withBreak++;
  harnesses.set(j.format, h);
}

const lines = [
  SECTION,
  '',
  `Every request of the ${sessions} readable real sessions of the corpus (${files.length} files: the sessions of the precision`,
  'table in docs/diagnostics.md) whose cache read fell short of what the request before it left cacheable, by',
  'the cause the log gives (docs/tokens.md, "Prompt-cache breaks"). Tokens are the provider’s: those not',
  'read from the cache, so computed and paid again; prompt tokens are every request’s whole reported',
  'context. No price is assumed, so the cost is given in tokens. Regenerate with',
  '`node scripts/build-cli.mjs && node scripts/fetch-corpus.mjs && node scripts/corpus-cache-breaks.mjs --docs`.',
  '',
  '| harness | sessions | with a break | requests with usage | breaks | tokens not read | of all prompt tokens |',
  '|---|---|---|---|---|---|---|',
  ...[...harnesses.entries()]
    .sort()
    .map(
      ([name, h]) =>
        `| ${name} | ${h.sessions} | ${h.withBreak} | ${fmt(h.requests)} | ${h.breaks} | ${fmt(h.tokens)} | ${pct(h.tokens, h.prompt)} |`,
    ),
  '',
  '| harness | cause | breaks | of them certain | tokens not read | share of the harness’s break tokens |',
  '|---|---|---|---|---|---|',
  ...[...harnesses.entries()].sort().flatMap(([name, h]) =>
    CAUSES.flatMap((cause) => {
      const c = causes.get(`${name}\u0000${cause}`);
      return c ? [`| ${name} | ${cause} | ${c.count} | ${c.certain} | ${fmt(c.tokens)} | ${pct(c.tokens, h.tokens)} |`] : [];
    }),
  ),
  '',
];
const body = lines.join('\n');
if (process.argv.includes('--docs')) {
  const text = existsSync(DOCS) ? readFileSync(DOCS, 'utf8') : '# Forensics\n';
  const start = text.indexOf(SECTION);
  const next = start < 0 ? -1 : text.indexOf('\n## ', start + SECTION.length);
  // The body ends in one newline: the blank line before the next section is put back here.
  const updated =
    start < 0 ? `${text.trimEnd()}\n\n${body}` : `${text.slice(0, start)}${body}${next < 0 ? '' : `\n${text.slice(next + 1)}`}`;
  writeFileSync(DOCS, updated.endsWith('\n') ? updated : `${updated}\n`);
} else process.stdout.write(body);
