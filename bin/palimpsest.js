#!/usr/bin/env node
// The built CLI lives in dist/ (npm run build:cli).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
if (!existsSync(cli)) {
  process.stderr.write('palimpsest: dist/cli.js is missing; run `npm run build` first.\n');
  process.exit(2);
}
await import(cli);
