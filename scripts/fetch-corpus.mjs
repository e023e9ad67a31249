#!/usr/bin/env node
// Fetches the real public sessions listed in fixtures/corpus/remote.json — those whose
// repositories do not license redistribution, so they are not committed — into the git-ignored
// .corpus/ folder, from raw.githubusercontent.com at the recorded commit. Each file is checked
// against its recorded sha256 before it is written; a mismatch is reported and nothing is written.
// The corpus tests (test/corpus/) run on whatever is there.
//
//   node scripts/fetch-corpus.mjs [--force]     (--force: fetch again files already present)

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize, sep } from 'node:path';

const LIST = 'fixtures/corpus/remote.json';
const OUT = '.corpus';
const force = process.argv.includes('--force');

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

/** The destination under .corpus/, refusing a listed name that would leave it. */
function destination(file) {
  const p = normalize(join(OUT, file));
  if (!p.startsWith(OUT + sep) || !p.endsWith('.jsonl')) throw new Error(`refusing the listed file name "${file}"`);
  return p;
}

function rawUrl(s) {
  const path = s.path.split('/').map(encodeURIComponent).join('/');
  return `https://raw.githubusercontent.com/${s.repo}/${s.commit}/${path}`;
}

async function fetchOne(s) {
  const dest = destination(s.file);
  if (!force && existsSync(dest) && sha256(readFileSync(dest)) === s.sha256) return 'present';
  const res = await globalThis.fetch(rawUrl(s), { redirect: 'follow' });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  const bytes = Buffer.from(await res.arrayBuffer());
  const got = sha256(bytes);
  if (got !== s.sha256) throw new Error(`sha256 ${got}, expected ${s.sha256}`);
  mkdirSync(dirname(dest), { recursive: true });
  // Written whole, then renamed: an interrupted run never leaves a partial file under its name.
  writeFileSync(`${dest}.part`, bytes);
  renameSync(`${dest}.part`, dest);
  return 'fetched';
}

const { sessions } = JSON.parse(readFileSync(LIST, 'utf8'));
const tally = { present: 0, fetched: 0, failed: 0 };
for (const s of sessions) {
  try {
    tally[await fetchOne(s)]++;
  } catch (e) {
    tally.failed++;
    process.stderr.write(`fetch-corpus: ${s.repo}@${s.commit.slice(0, 12)} ${s.path}: ${e instanceof Error ? e.message : String(e)}\n`);
  }
}
process.stdout.write(
  `fetch-corpus: ${sessions.length} listed, ${tally.fetched} fetched, ${tally.present} already present, ${tally.failed} failed (into ${OUT}/)\n`,
);
process.exitCode = tally.failed > 0 ? 1 : 0;
