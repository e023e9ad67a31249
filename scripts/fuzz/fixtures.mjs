// The fixture sessions the fuzz run mutates: every session file under fixtures/ (`*.jsonl`,
// `*.jsonl.zst`, `*.jsonl.zstd`), a Claude Code session together with its `<id>/` folder of
// subagents, and every Rind session folder. Which importer reads each one is not guessed from its
// folder: the run asks the CLI (a baseline `inspect --json` of the unmutated copies).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const SESSION_FILE = /\.jsonl(\.zstd?)?$/;
const RIND_MARKERS = ['meta.json', 'messages.jsonl'];

/**
 * @typedef {{ id: string, name: string, files: string[] }} Unit
 * `id` is the path under fixtures/; `name` the file or folder a command is given; `files` the
 * unit's files relative to the folder that holds `name` (so `name` itself, or `name/...`).
 */

/** @param {string} abs @param {string} base @returns {string[]} */
function filesUnder(abs, base) {
  const out = [];
  for (const e of readdirSync(abs, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const p = join(abs, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p, base));
    else if (e.isFile()) out.push(relative(base, p));
  }
  return out;
}

/** @param {string} root the fixtures folder @returns {Unit[]} */
export function fixtureUnits(root) {
  /** @type {Unit[]} */
  const units = [];
  /** @param {string} dir */
  const walk = (dir) => {
    const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
    const names = new Set(entries.map((e) => e.name));
    if (dir !== root && RIND_MARKERS.some((m) => names.has(m))) {
      const name = relative(join(dir, '..'), dir);
      units.push({ id: relative(root, dir), name, files: filesUnder(dir, join(dir, '..')) });
      return;
    }
    /** Folders read with the file beside them (Claude Code's `<id>/subagents/`). */
    const companions = new Set();
    for (const e of entries) {
      if (!e.isFile() || !SESSION_FILE.test(e.name)) continue;
      const stem = e.name.replace(SESSION_FILE, '');
      const files = [e.name];
      if (names.has(stem) && entries.find((x) => x.name === stem)?.isDirectory()) {
        companions.add(stem);
        files.push(...filesUnder(join(dir, stem), dir));
      }
      units.push({ id: relative(root, join(dir, e.name)), name: e.name, files });
    }
    for (const e of entries) if (e.isDirectory() && !companions.has(e.name) && !e.name.startsWith('.')) walk(join(dir, e.name));
  };
  walk(root);
  return units;
}

/** The unit's files as bytes, keyed by their path relative to the folder holding `unit.name`. @param {string} root @param {Unit} unit */
export function readUnit(root, unit) {
  const base = join(root, unit.id, '..');
  /** @type {Map<string, Buffer>} */
  const files = new Map();
  for (const f of unit.files) files.set(f, readFileSync(join(base, f)));
  return files;
}
