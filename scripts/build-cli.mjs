// Bundles the plain-Node entry points (CLI, bench) with esbuild. No Electron is involved, so this
// works on machines without the Electron binary.
import { build } from 'esbuild';

const entries = {
  cli: 'src/main/cli/index.ts',
  // `palimpsest ls` has a bundle of its own: it must start faster than the whole CLI loads.
  ls: 'src/main/cli/ls-entry.ts',
  // Found next to cli.js / bench.js by the token counter's worker pool.
  'token-worker': 'src/main/tokens/worker.ts',
  // Found next to cli.js / bench.js by a parallel load (src/main/session/parallel-load.ts).
  'load-worker': 'src/main/session/range-worker.ts',
  // Found next to cli.js / bench.js by the session index's readers (src/main/catalog/extract-pool.ts).
  'extract-worker': 'src/main/catalog/extract-worker.ts',
  bench: 'bench/bench.ts',
  'gen-sessions': 'bench/generate.ts',
  // The log-representation experiment of docs/performance.md (node --expose-gc dist/sinks.js FILE [ROUNDS]).
  sinks: 'bench/sinks.ts',
  // Long-session questions beyond views (node dist/questions.js FILE; bench.ts asks them too).
  questions: 'bench/questions-cli.ts',
  // How long the app's host answers nothing while it opens a session (node dist/open-block.js FILE [RUNS]).
  'open-block': 'bench/open-block.ts',
  // The follow soak: a writer appends while a follower follows (node --expose-gc dist/soak.js [FILE] [--seconds N]).
  soak: 'bench/soak.ts',
  // The fidelity suite's runner (scripts/fidelity.mjs, npm run test:fidelity).
  fidelity: 'src/main/fidelity/cli.ts',
};
const { existsSync } = await import('node:fs');
const entryPoints = Object.fromEntries(Object.entries(entries).filter(([, p]) => existsSync(p)));

const { cli, ...rest } = entryPoints;
const banner = { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" };

// The CLI with code splitting: what it imports only when run (the commands that need the providers'
// SDKs, the web host or the re-run machinery; the token rank files) goes to chunks of its own,
// loaded on demand, so that `inspect` does not compile them. The chunks sit beside cli.js, so that
// a chunk's import.meta.url finds the worker bundles (token-worker.js, load-worker.js, extract-worker.js) as cli.js does.
if (cli) {
  await build({
    entryPoints: { cli },
    outdir: 'dist',
    splitting: true,
    chunkNames: 'cli-[name]-[hash]',
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: true,
    logLevel: 'warning',
    banner,
  });
}

await build({
  entryPoints: rest,
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
  // A CommonJS dependency bundled into ESM may call require() for Node built-ins.
  banner,
  // The soak's --ui drives Chromium through playwright, which loads its own files at run time: it
  // is imported from node_modules, not bundled.
  external: ['playwright', 'playwright-core'],
});

// The ls bundle once more, as minified CommonJS (dist/ls.cjs): bin/palimpsest.js runs `ls` from it
// as a vm.Script, which spares a listing the ES module loader (see there). dist/ls.js stays, for
// running the bundle directly.
if (entryPoints.ls) {
  await build({
    entryPoints: { ls: entryPoints.ls },
    outdir: 'dist',
    outExtension: { '.js': '.cjs' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    minify: true,
    sourcemap: true,
    logLevel: 'warning',
    // import.meta.url (the worker bundle's own address, src/main/discovery/parallel.ts) from __filename.
    define: { 'import.meta.url': '__ls_url' },
    banner: { js: 'var __ls_url = require("node:url").pathToFileURL(__filename).href;' },
  });
}
