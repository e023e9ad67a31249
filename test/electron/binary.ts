import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * Where the Electron binary is, found without `require('electron')` — which, offline, tries to
 * download it (no network access to its CDN). $ELECTRON_EXEC_PATH first, else the file
 * node_modules/electron/ path.txt names under its dist/ (both exist only after a successful
 * download). Returns the path, or why there is none.
 */
export function findElectron(root = resolve('.'), env: NodeJS.ProcessEnv = process.env): { path: string } | { missing: string } {
  const given = env.ELECTRON_EXEC_PATH;
  if (given) {
    return existsSync(given) ? { path: given } : { missing: `ELECTRON_EXEC_PATH is ${given}, which does not exist` };
  }
  const pathTxt = join(root, 'node_modules', 'electron', 'path.txt');
  if (!existsSync(pathTxt)) {
    return {
      missing:
        'the Electron binary is not installed (no node_modules/electron/path.txt: its download never ran or failed); set ELECTRON_EXEC_PATH to an Electron executable to run this test',
    };
  }
  const path = join(root, 'node_modules', 'electron', 'dist', readFileSync(pathTxt, 'utf8').trim());
  return existsSync(path) ? { path } : { missing: `node_modules/electron/path.txt names ${path}, which does not exist` };
}

/** Why a window cannot be shown here, or null: Linux needs a display server (run under xvfb-run). */
export function missingDisplay(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string | null {
  if (platform !== 'linux') return null;
  return env.DISPLAY || env.WAYLAND_DISPLAY ? null : 'no display (DISPLAY is not set): run it under xvfb-run';
}
