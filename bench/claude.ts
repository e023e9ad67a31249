import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A ~200 MB Claude Code session for the importer's throughput (docs/performance.md). The target:
 * importers keep the spine's reading speed, at least 0.5× the bare parse loop on a 200 MB
 * synthetic Claude Code session.
 * Built from the real 2.1.39 sample in fixtures/claude-code/ repeated with every uuid and API id
 * rewritten per copy, so the copies are distinct records of one file (each copy starts a new root, as
 * a `/clear` does). Deterministic; rebuilt only when missing or of another version.
 */
export const CLAUDE_BIG_VERSION = 1;
export const CLAUDE_BIG_FILE = 'claude200mb.jsonl';
export const CLAUDE_TARGET_RATIO = 0.5;

const SAMPLE = 'fixtures/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl';
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const API_ID = /\b(msg|req|toolu|srvtoolu)_([0-9A-Za-z]+)/g;

function rewrite(text: string, copy: number): string {
  const key = Math.imul(copy + 1, 0x9e3779b1) >>> 0 || 1;
  return text
    .replace(UUID, (u) => ((parseInt(u.slice(0, 8), 16) ^ key) >>> 0).toString(16).padStart(8, '0') + u.slice(8))
    .replace(API_ID, (_m, p: string, body: string) => `${p}_c${copy.toString(36)}${body}`);
}

export function ensureClaudeBig(dataDir: string, targetBytes = 200_000_000, log: (s: string) => void = () => undefined): string {
  const path = join(dataDir, CLAUDE_BIG_FILE);
  const metaPath = `${path}.meta.json`;
  if (existsSync(path) && existsSync(metaPath)) {
    const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as { version?: number; bytes?: number };
    if (meta.version === CLAUDE_BIG_VERSION && meta.bytes === statSync(path).size) {
      log(`  ${CLAUDE_BIG_FILE}: present (${(statSync(path).size / 1e6).toFixed(1)} MB), kept`);
      return path;
    }
  }
  log(`  ${CLAUDE_BIG_FILE}: building ~${(targetBytes / 1e6).toFixed(0)} MB from ${SAMPLE}…`);
  mkdirSync(dataDir, { recursive: true });
  const sample = readFileSync(SAMPLE, 'utf8');
  const partial = `${path}.partial`;
  writeFileSync(partial, '');
  let bytes = 0;
  for (let copy = 0; bytes < targetBytes; copy++) {
    const chunk = rewrite(sample, copy);
    appendFileSync(partial, chunk.endsWith('\n') ? chunk : `${chunk}\n`);
    bytes += Buffer.byteLength(chunk) + (chunk.endsWith('\n') ? 0 : 1);
  }
  renameSync(partial, path);
  writeFileSync(metaPath, JSON.stringify({ version: CLAUDE_BIG_VERSION, bytes: statSync(path).size }) + '\n');
  return path;
}
