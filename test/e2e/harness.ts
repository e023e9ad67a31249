import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright';
import { createHandlers } from '../../src/main/api/handlers';
import { SessionRegistry } from '../../src/main/api/sessions';
import { startWebHost, type WebHost } from '../../src/main/web/server';

export const CHROMIUM = process.env.PALIMPSEST_CHROMIUM ?? '/usr/bin/chromium';
export const RENDERER_DIR = resolve('out', 'renderer');
export const RESULTS = resolve('test-results');
export const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run',
];

/** Fails (never skips) when a prerequisite is missing: CI installs both. */
export function requirePrerequisites(): void {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}: install it (apt-get update && apt-get install -y chromium) or set PALIMPSEST_CHROMIUM. The end-to-end suite does not skip without it.`);
  }
  if (!existsSync(join(RENDERER_DIR, 'index.html'))) {
    throw new Error(`The renderer is not built (${RENDERER_DIR}/index.html is missing): run \`npm run build\` first.`);
  }
}

export interface Served { host: WebHost; close(): Promise<void> }

/** The same wiring as `palimpsest serve` (src/main/cli/serve.ts), on port 0. */
export async function serveSessions(paths: readonly string[]): Promise<Served> {
  const registry = new SessionRegistry({ allow: paths });
  const handlers = createHandlers({ registry, initialPaths: paths });
  const host = await startWebHost({ port: 0, handlers, rendererDir: RENDERER_DIR });
  return {
    host,
    async close() {
      await host.close();
      registry.dispose();
    },
  };
}

export async function launch(): Promise<Browser> {
  requirePrerequisites();
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(RESULTS, { recursive: true });
  const path = join(RESULTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
