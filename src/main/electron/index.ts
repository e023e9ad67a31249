import { shellArgs } from '../library/launch-args';
import { startShell } from './shell';

/**
 * Electron main entry (built by electron-vite into out/main/index.js). Session files come from the
 * command line: `electron . <session.jsonl>… [--capture FILE]…` in development, `palimpsest
 * <session.jsonl>…` packaged (src/main/library/launch-args.ts).
 */
const packaged = !process.defaultApp;
startShell(shellArgs(process.argv.slice(packaged ? 1 : 2)));
