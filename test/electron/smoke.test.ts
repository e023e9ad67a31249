import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { _electron, type ElectronApplication, type Page } from 'playwright';
import { API_METHODS } from '../../src/shared/api/methods';
import { findElectron, missingDisplay } from './binary';

/**
 * The built app in a real Electron window, on fixtures/palimpsest/basic.jsonl: the session shows,
 * and the window runs with context isolation, the sandbox and no Node. Skipped, with the reason
 * printed, where there is no Electron binary (it cannot be downloaded on the project's machines)
 * or no display.
 */

const BASIC = 'fixtures/palimpsest/basic.jsonl';
const MAIN = resolve('out', 'main', 'index.js');

const found = findElectron();
const why =
  'missing' in found
    ? found.missing
    : (missingDisplay() ?? (existsSync(MAIN) ? null : `the app is not built (${MAIN} is missing): run npm run build`));
if (why) console.warn(`Electron smoke test skipped: ${why}.`);

let app: ElectronApplication | null = null;
afterAll(async () => {
  await app?.close();
});

describe('the Electron app', () => {
  it('opens the session given on the command line in a locked-down window', async (ctx) => {
    if (why || !('path' in found)) {
      ctx.skip(why ?? 'no Electron binary');
      return;
    }
    // Electron will not start as root without --no-sandbox (containers, CI); the window's own
    // renderer sandbox (webPreferences.sandbox) is what is checked below.
    const root = typeof process.getuid === 'function' && process.getuid() === 0;
    app = await _electron.launch({
      executablePath: found.path,
      args: [...(root ? ['--no-sandbox'] : []), '.', BASIC],
      env: { ...process.env, ELECTRON_ENABLE_LOGGING: '0' },
      timeout: 60_000,
    });
    const page: Page = await app.firstWindow();
    await page.locator('.row.request').first().waitFor({ timeout: 60_000 });
    expect(await page.locator('.row.request').count()).toBe(10);
    expect(await page.locator('.app-bar [role=tab][aria-selected=true]').innerText()).toContain('basic.jsonl');
    expect(page.url()).toBe('app://palimpsest/index.html');

    // The preferences the window really runs with (getLastWebPreferences is public API, missing from electron.d.ts).
    const prefs = await app.evaluate(({ BrowserWindow }) => {
      type Prefs = { contextIsolation?: boolean; sandbox?: boolean; nodeIntegration?: boolean; webSecurity?: boolean };
      const wc = BrowserWindow.getAllWindows()[0]?.webContents as unknown as { getLastWebPreferences?: () => Prefs | null } | undefined;
      const p = wc?.getLastWebPreferences?.() ?? null;
      return p
        ? { contextIsolation: p.contextIsolation, sandbox: p.sandbox, nodeIntegration: p.nodeIntegration, webSecurity: p.webSecurity }
        : null;
    });
    expect(prefs).toEqual({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true });

    const inPage = await page.evaluate(() => ({
      require: typeof (globalThis as { require?: unknown }).require,
      process: typeof (globalThis as { process?: unknown }).process,
      api: Object.keys((window as unknown as { palimpsest?: object }).palimpsest ?? {}).sort(),
    }));
    expect(inPage).toEqual({ require: 'undefined', process: 'undefined', api: [...API_METHODS].sort() });
  });
});
