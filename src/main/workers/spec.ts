import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

export interface WorkerSpec {
  /** The worker module. */
  readonly url: URL;
  /** Running from TypeScript source: the URL of tsx's ESM API, registered in the worker before the module loads. */
  readonly tsx?: string;
}

/**
 * Where a worker script is: `bundle` next to the running bundle (dist/ or out/main/, built by
 * scripts/build-cli.mjs and electron.vite.config.ts) or, running from source under tsx or vitest,
 * `source` (relative to `moduleUrl`) loaded through tsx. null: no worker script can be found (the
 * caller then does the work on its own thread).
 */
export function workerSpec(moduleUrl: string, source: string, bundle: string): WorkerSpec | null {
  if (/\.tsx?$/.test(new URL(moduleUrl).pathname)) {
    const tsx = tsxEsmApi(moduleUrl);
    return tsx ? { url: new URL(source, moduleUrl), tsx } : null;
  }
  const url = new URL(`./${bundle}`, moduleUrl);
  return existsSync(fileURLToPath(url)) ? { url } : null;
}

/** The ESM entry of tsx's API (its `require` entry cannot register the ESM loader). */
function tsxEsmApi(moduleUrl: string): string | null {
  try {
    const pkgPath = createRequire(moduleUrl).resolve('tsx/package.json');
    const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { exports?: Record<string, { import?: { default?: string } | string }> };
    const entry = pkg.exports?.['./esm/api']?.import;
    const rel = typeof entry === 'string' ? entry : entry?.default;
    return rel ? new URL(rel, pathToFileURL(pkgPath)).href : null;
  } catch {
    return null;
  }
}

/** Starts the worker `spec` names with `workerData`. */
export function startWorker(spec: WorkerSpec, workerData: unknown): Worker {
  if (!spec.tsx) return new Worker(spec.url, { workerData });
  // Node 20 does not apply `--import` loaders given in a worker's execArgv: register tsx in the worker itself.
  // A failure to load surfaces as the worker's 'error' event.
  const boot = `import(${JSON.stringify(spec.tsx)}).then((m) => { m.register(); return import(${JSON.stringify(spec.url.href)}); });`;
  return new Worker(boot, { eval: true, workerData });
}
