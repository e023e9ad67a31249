#!/usr/bin/env node
// The findings of `palimpsest validate` on the corpus of real sessions, for review by hand.
//
//   node scripts/corpus-findings.mjs [FILE|DIR…]   one JSON line per finding:
//        {"file", "session", "rule", "severity", "line", "message"} — `file` is the log the finding
//        points into (a subagent file of `session`, or the session itself)
//   node scripts/corpus-findings.mjs --docs        writes the per-rule precision (findings, reviewed
//        true, reviewed false, not reviewed; verdicts from fixtures/corpus/review.json) into the
//        section "Precision on real sessions" of docs/diagnostics.md
//
// Without FILE|DIR: the committed corpus (fixtures/corpus/), the real logs of fixtures/claude-code/
// and fixtures/codex/, and the fetched sessions in .corpus/ when scripts/fetch-corpus.mjs has run.
// Runs the built CLI (node scripts/build-cli.mjs first).

import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { corpusFiles, walk } from './corpus-files.mjs';

const BIN = 'bin/palimpsest.js';
const REVIEW = 'fixtures/corpus/review.json';
const DOCS = 'docs/diagnostics.md';
const SECTION = '## Precision on real sessions';
/** `validate --json` of one session; null (with the reason on stderr) when it cannot be read. */
function validate(file) {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, 'validate', file, '--json'], { maxBuffer: 256 * 1024 * 1024 }, (err, stdout, stderr) => {
      // Exit 1 only says the session has error-level findings; 2 is unreadable input.
      if (err && err.code !== 1) {
        process.stderr.write(`corpus-findings: ${file}: ${(stderr || String(err)).split('\n')[0]}\n`);
        resolve(null);
        return;
      }
      resolve(JSON.parse(stdout));
    });
  });
}

async function findings(files) {
  const out = [];
  for (const session of files) {
    const j = await validate(session);
    for (const d of j?.diagnostics ?? []) {
      out.push({ file: d.file ?? session, session, rule: d.rule, severity: d.severity, line: d.line ?? null, message: d.message });
    }
  }
  return out;
}

const key = (f) => JSON.stringify([f.file, f.rule, f.line, f.message]);

/** Per rule: findings, reviewed true, reviewed false, not reviewed. */
function precision(found, review) {
  const verdicts = new Map(review.map((r) => [key(r), r.verdict]));
  const rules = new Map();
  for (const f of found) {
    const r = rules.get(f.rule) ?? { rule: f.rule, findings: 0, true: 0, false: 0, unreviewed: 0 };
    const v = verdicts.get(key(f));
    r.findings++;
    if (v === 'true') r.true++;
    else if (v === 'false') r.false++;
    else r.unreviewed++;
    rules.set(f.rule, r);
  }
  return [...rules.values()].sort((a, b) => a.rule.localeCompare(b.rule));
}

/**
 * Warnings per healthy session: a session is healthy when no error-level finding on it was reviewed
 * true (a real failure). Every warning on a healthy session counts, reviewed true or not: the target
 * is what a user reads on a session that needs no attention.
 */
function noise(found, review, sessions) {
  const verdicts = new Map(review.map((r) => [key(r), r.verdict]));
  const broken = new Set(found.filter((f) => f.severity === 'error' && verdicts.get(key(f)) === 'true').map((f) => f.session));
  const healthy = sessions.filter((s) => !broken.has(s));
  const warnings = found.filter((f) => f.severity === 'warning' && !broken.has(f.session)).length;
  return { healthy: healthy.length, warnings };
}

function table(rows, sessions, n) {
  const lines = [
    SECTION,
    '',
    `Every finding \`validate\` reports on the ${sessions} real sessions of the corpus (fixtures/corpus/, the`,
    'real logs of fixtures/claude-code/ and fixtures/codex/, and the fetched sessions of',
    'fixtures/corpus/remote.json), each reviewed by hand against the log around it; the verdicts and',
    'their reasons are in fixtures/corpus/review.json. Precision is true / (true + false). Regenerate',
    'with `node scripts/build-cli.mjs && node scripts/fetch-corpus.mjs && node',
    'scripts/corpus-findings.mjs --docs`.',
    '',
    '| rule | findings | true | false | not reviewed | precision |',
    '|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| \`${r.rule}\` | ${r.findings} | ${r.true} | ${r.false} | ${r.unreviewed} | ${r.true + r.false > 0 ? `${Math.round((100 * r.true) / (r.true + r.false))} %` : '—'} |`,
    ),
    '',
    `Warnings per healthy session: ${n.warnings} warnings on the ${n.healthy} sessions with no error-level`,
    `finding reviewed true, ${n.healthy > 0 ? (n.warnings / n.healthy).toFixed(2) : '—'} a session (target: at most 1). Every warning counts here, reviewed`,
    'true or not: it is what a user reads on a session that needs no attention.',
    '',
  ];
  return lines.join('\n');
}

const args = process.argv.slice(2);
const docs = args.includes('--docs');
const given = args.filter((a) => a !== '--docs');
const files = given.length > 0 ? given.flatMap(walk) : corpusFiles();
const found = await findings(files);
if (docs) {
  const review = existsSync(REVIEW) ? JSON.parse(readFileSync(REVIEW, 'utf8')) : [];
  const text = readFileSync(DOCS, 'utf8');
  const start = text.indexOf(SECTION);
  const next = start < 0 ? -1 : text.indexOf('\n## ', start + SECTION.length);
  const body = table(precision(found, review), files.length, noise(found, review, files));
  const updated = start < 0 ? `${text.trimEnd()}\n\n${body}` : `${text.slice(0, start)}${body}${next < 0 ? '' : text.slice(next + 1)}`;
  writeFileSync(DOCS, updated.endsWith('\n') ? updated : `${updated}\n`);
  process.stdout.write(`corpus-findings: ${found.length} findings on ${files.length} sessions; precision written to ${DOCS}\n`);
} else {
  for (const f of found) process.stdout.write(`${JSON.stringify(f)}\n`);
}
