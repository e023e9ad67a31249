import { resolve } from 'node:path';
import { startShell } from './shell';

/**
 * Electron main entry (built by electron-vite into out/main/index.js). Session files come from the
 * command line: `electron . <session.jsonl>…` in development, `palimpsest <session.jsonl>…` packaged.
 * Chromium switches (`--…`) are not paths.
 */
const packaged = !process.defaultApp;
const args = process.argv.slice(packaged ? 1 : 2);
const paths = args.filter((a) => a !== '' && !a.startsWith('-')).map((a) => resolve(a));

startShell({ paths });
