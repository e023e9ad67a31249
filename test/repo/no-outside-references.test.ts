import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/*
 * A clone of the repository must be self-contained: comments, docs, tests and user-visible strings
 * name the projects they follow (docs/sources.md) or say the rule itself; they never point at
 * design notes, research reports or tracker issues that a clone does not hold.
 *
 * The patterns are built from pieces so that this file does not match itself.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const md = '\\.' + 'md';
const PATTERNS: readonly { readonly name: string; readonly re: RegExp }[] = [
  { name: 'design notes outside the repo', re: new RegExp('\\b' + 'DES' + 'IGN' + md) },
  { name: 'format research outside the repo', re: new RegExp('\\b' + 'form' + 'ats' + md) },
  { name: 'machine notes outside the repo', re: new RegExp('\\b' + 'ENVIRON' + 'MENT' + md) },
  { name: 'a numbered seed text', re: new RegExp('\\b' + 'se' + 'eds?[ -]?0\\d\\d\\b', 'i') },
  { name: 'the seed texts folder', re: new RegExp('\\b' + 'se' + 'eds/') },
  { name: 'a section of a seed text', re: new RegExp('\\b00\\d ' + '\u00a7' + '\\s?\\d') },
  {
    name: 'a folder beside the repo',
    re: new RegExp('(?:\\.\\./)+' + 'sha' + 'red/(?:' + 'se' + 'eds|fixtures|hooks|[A-Za-z_]+' + md + ')'),
  },
  { name: 'a tracker issue', re: new RegExp('\\b' + 'iss' + 'ue #?\\d+', 'i') },
];

/** Folders never scanned: installed packages, build output, local corpora. */
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'out', '.corpus', '.git', 'test-results']);

/**
 * Fixture data is kept byte for byte (real logs, captures, compressed files): a harness's own text
 * may mention anything. Only what we write about the fixtures is checked.
 */
const FIXTURE_TEXT = /\.(md|ts|mjs|js|yaml|yml)$/;

/** Files that are not text. */
const BINARY = /\.(png|jpe?g|gif|ico|icns|woff2?|ttf|zst|zstd|gz|zip|wasm|node)$/i;

function trackedFiles(): string[] {
  try {
    const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: ROOT,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const files = out.split('\0').filter((f) => f !== '');
    if (files.length > 0) return files;
  } catch {
    // No git (a source tarball, a container without it): walk the tree instead.
  }
  return walk(ROOT);
}

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (SKIPPED_DIRS.has(e.name)) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(p));
    else if (e.isFile()) out.push(relative(ROOT, p).split(sep).join('/'));
  }
  return out;
}

function scanned(file: string): boolean {
  if (file.split('/').some((part) => SKIPPED_DIRS.has(part))) return false;
  if (BINARY.test(file)) return false;
  if (file.startsWith('fixtures/') && !FIXTURE_TEXT.test(file)) return false;
  return true;
}

/** A line's text without its indentation and comment markers, so that a wrapped phrase joins up. */
const LEAD = /^\s*(?:\/\/+|\/?\*+\/?|#+|--)?\s*/;

/**
 * Every line of `text` that matches a pattern, as `file:line: what: the line`. A line is also read
 * joined with the next, so a reference wrapped at the end of a comment line is caught; it is
 * reported on the line where it starts.
 */
function outsideReferences(file: string, text: string): string[] {
  if (text.slice(0, 8192).includes('\0')) return [];
  const lines = text.split('\n');
  const found: string[] = [];
  lines.forEach((line, i) => {
    const next = lines[i + 1]?.replace(LEAD, '') ?? '';
    for (const p of PATTERNS) {
      const alone = p.re.test(line);
      const wrapped = !alone && next !== '' && p.re.test(`${line.trimEnd()} ${next}`) && !p.re.test(next);
      if (alone || wrapped) found.push(`${file}:${i + 1}: ${p.name}: ${line.trim().slice(0, 160)}`);
    }
  });
  return found;
}

describe('no references outside the repository', () => {
  it('catches each kind of outside reference and passes a clean line', () => {
    const bad = [
      'See ' + 'DES' + 'IGN' + '.md for the layers.',
      'From ' + 'form' + 'ats.md §3.',
      'Measured on the machine of ' + 'ENVIRON' + 'MENT.md.',
      'As ' + 'se' + 'ed 002 says.',
      'The ' + 'se' + 'ed-000 handoff.',
      'Read ../' + 'se' + 'eds/ first.',
      'Pinned (004 ' + '\u00a7' + '5.2).',
      'Samples in ../' + 'sha' + 'red/fixtures/.',
      'Asked for in ' + 'iss' + 'ue #7.',
    ];
    for (const line of bad) expect(outsideReferences('x.ts', line), line).not.toEqual([]);
    const clean = "import { Item } from '../shared/model/item'; // cosh's chain (docs/sources.md), docs/format.md §9";
    expect(outsideReferences('x.ts', clean)).toEqual([]);
    expect(outsideReferences('x.ts', 'ok\n' + bad[0])).toEqual([`x.ts:2: design notes outside the repo: ${bad[0]}`]);
    // Wrapped at the end of a comment line, reported where it starts, once.
    const wrapped = ' * Completion integrity (' + 'se' + 'ed\n * 000: an empty summary is no handoff).';
    expect(outsideReferences('x.ts', wrapped)).toEqual([`x.ts:1: a numbered seed text: * Completion integrity (${'se' + 'ed'}`]);
  });

  it('has none in any tracked text file', () => {
    const files = trackedFiles().filter(scanned);
    expect(files.length).toBeGreaterThan(100);
    const found: string[] = [];
    for (const file of files) {
      let text: string;
      try {
        text = readFileSync(join(ROOT, file), 'utf8');
      } catch {
        continue; // listed by git but deleted in the working tree
      }
      found.push(...outsideReferences(file, text));
    }
    expect(found, `references to documents a clone does not hold:\n${found.join('\n')}`).toEqual([]);
  });
});
