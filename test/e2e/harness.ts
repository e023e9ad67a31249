import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright';
import type { SessionRegistry } from '../../src/main/api/sessions';
import type { DiscoverOptions } from '../../src/main/discovery/discover';
import { createHostContext } from '../../src/main/host/host-context';
import { startWebHost, type WebHost } from '../../src/main/web/server';

export const CHROMIUM = process.env.PALIMPSEST_CHROMIUM ?? '/usr/bin/chromium';
export const RENDERER_DIR = resolve('out', 'renderer');
export const RESULTS = resolve('test-results');
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Fails (never skips) when a prerequisite is missing: CI installs both. */
export function requirePrerequisites(): void {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM}: install it (apt-get update && apt-get install -y chromium) or set PALIMPSEST_CHROMIUM. The end-to-end suite does not skip without it.`,
    );
  }
  if (!existsSync(join(RENDERER_DIR, 'index.html'))) {
    throw new Error(`The renderer is not built (${RENDERER_DIR}/index.html is missing): run \`npm run build\` first.`);
  }
}

export interface Served {
  host: WebHost;
  /** The host's sessions, for a test to see what it read. */
  registry: SessionRegistry;
  close(): Promise<void>;
}

/**
 * The same wiring as `palimpsest serve` (src/main/cli/serve.ts), on port 0. Discovery of this
 * machine's sessions is off unless `machine` says where to look (a fake home), so that what the
 * library lists does not depend on the machine the tests run on.
 */
export async function serveSessions(paths: readonly string[], machine: DiscoverOptions | false = false): Promise<Served> {
  const context = await createHostContext({ paths, machine });
  const host = await startWebHost({ port: 0, handlers: context.handlers, rendererDir: RENDERER_DIR });
  return {
    host,
    registry: context.registry,
    async close() {
      await host.dispose();
      context.dispose();
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

/** The provider-key variables a keyless host must not see. */
export const KEY_VARS = ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'GEMINI_API_KEY', 'GOOGLE_API_KEY'] as const;

export interface IsolatedHost {
  /** The temporary data folder the in-process host writes results and settings to. */
  readonly dataDir: string;
  /** Puts the environment back and removes the folder. */
  restore(): void;
}

/**
 * The hosts these tests start run in this process: point them at a fresh data folder and, with
 * `noKeys`, hide the provider keys, so nothing depends on (or writes to) the machine's own.
 */
export function isolateHost(prefix: string, opts: { readonly noKeys?: boolean } = {}): IsolatedHost {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  const names = ['PALIMPSEST_DATA_DIR', ...(opts.noKeys ? KEY_VARS : [])];
  const saved = new Map(names.map((k) => [k, process.env[k]]));
  process.env.PALIMPSEST_DATA_DIR = dataDir;
  if (opts.noKeys) for (const k of KEY_VARS) delete process.env[k];
  return {
    dataDir,
    restore() {
      for (const [k, v] of saved) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
