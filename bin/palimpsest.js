#!/usr/bin/env node
// The built CLI lives in dist/ (npm run build:cli). `ls` runs from a small bundle of its own, so
// listing sessions does not pay for loading every importer.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const lean = fileURLToPath(new URL('../dist/ls.js', import.meta.url));
const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
if (process.argv[2] === 'ls' && existsSync(lean)) {
  await import(lean);
} else {
  if (!existsSync(cli)) {
    process.stderr.write('palimpsest: dist/cli.js is missing; run `npm run build` first.\n');
    process.exit(2);
  }
  await import(cli);
}
