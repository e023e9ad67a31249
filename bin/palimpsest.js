#!/usr/bin/env node
// The built CLI lives in dist/ (npm run build:cli). `ls` runs from a small bundle of its own, so
// listing sessions does not pay for loading every importer (docs/performance.md, "`palimpsest ls`");
// the commands that open one session run from dist/open.cjs with a V8 code cache (bin/open.js).
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

const lean = fileURLToPath(new URL('../dist/ls.js', import.meta.url));
const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

/**
 * `ls`: dist/ls.cjs (the same bundle as dist/ls.js, as minified CommonJS) compiled and run as a
 * vm.Script. Importing dist/ls.js as an ES module costs a repeat listing 2.5–5.5 ms more CPU, 5–10 %
 * of it (the bench's `ls` loaders, docs/performance.md). False when there is no dist/ls.cjs.
 */
function runLsBundle() {
  const file = fileURLToPath(new URL('../dist/ls.cjs', import.meta.url));
  let source;
  try {
    source = readFileSync(file, 'utf8');
  } catch {
    return false;
  }
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: file });
  const module = { exports: {} };
  const dir = fileURLToPath(new URL('../dist/', import.meta.url));
  script.runInThisContext()(module.exports, createRequire(file), module, file, dir);
  return true;
}

/** The commands dist/open.cjs holds (src/main/cli/open-entry.ts); any other runs from dist/cli.js. */
const OPEN_COMMANDS = new Set(['inspect', 'view', 'events', 'tokens', 'validate', 'forensics']);
const command = process.argv[2];

if (
  command !== undefined &&
  OPEN_COMMANDS.has(command) &&
  (await import('./open.js')).runOpenBundle(fileURLToPath(new URL('../dist/open.cjs', import.meta.url)), command, process.argv.slice(3))
) {
  // Running.
} else if (process.argv[2] === 'ls' && runLsBundle()) {
  // Running: the bundle exits by itself.
} else if (process.argv[2] === 'ls' && existsSync(lean)) {
  await import(lean);
} else {
  if (!existsSync(cli)) {
    process.stderr.write('palimpsest: dist/cli.js is missing; run `npm run build` first.\n');
    process.exit(2);
  }
  await import(cli);
}
