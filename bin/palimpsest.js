#!/usr/bin/env node
// The built CLI lives in dist/ (npm run build:cli). `ls` runs from a small bundle of its own, so
// listing sessions does not pay for loading every importer.
//
// Node's modules come from process.getBuiltinModule (Node >= 20.16; package.json asks for 20.18),
// not from import statements: each built-in imported into an ES module costs it a few tenths of a
// millisecond, and a repeat `ls` is over in about forty (docs/performance.md).
const { existsSync, readFileSync } = process.getBuiltinModule('node:fs');
const { createRequire } = process.getBuiltinModule('node:module');
const { fileURLToPath } = process.getBuiltinModule('node:url');

const lean = fileURLToPath(new URL('../dist/ls.js', import.meta.url));
const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

/**
 * `ls`: dist/ls.cjs (the same bundle as dist/ls.js, as minified CommonJS) compiled and run as a
 * vm.Script. Importing dist/ls.js as an ES module, or require() through Node's module loader,
 * cost a listing a few milliseconds more. False when there is no dist/ls.cjs.
 */
function runLsBundle() {
  const file = fileURLToPath(new URL('../dist/ls.cjs', import.meta.url));
  let source;
  try {
    source = readFileSync(file, 'utf8');
  } catch {
    return false;
  }
  const { Script } = process.getBuiltinModule('node:vm');
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: file });
  const module = { exports: {} };
  const dir = fileURLToPath(new URL('../dist/', import.meta.url));
  script.runInThisContext()(module.exports, createRequire(file), module, file, dir);
  return true;
}

if (process.argv[2] === 'ls' && runLsBundle()) {
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
