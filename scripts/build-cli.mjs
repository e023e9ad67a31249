// Bundles the plain-Node entry points (CLI, bench) with esbuild. No Electron is involved, so this
// works on machines without the Electron binary.
import { build } from 'esbuild';

const entries = {
  cli: 'src/main/cli/index.ts',
  // `palimpsest ls` has a bundle of its own: it must start faster than the whole CLI loads.
  ls: 'src/main/cli/ls-entry.ts',
  // The commands that open one session, as one CommonJS bundle (dist/open.cjs, built below).
  open: 'src/main/cli/open-entry.ts',
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
  // Where one change's time goes when a long session is followed (node dist/follow-change.js [CHANGES]).
  'follow-change': 'bench/follow-change.ts',
  // The fidelity suite's runner (scripts/fidelity.mjs, npm run test:fidelity).
  fidelity: 'src/main/fidelity/cli.ts',
};
const { existsSync } = await import('node:fs');
const entryPoints = Object.fromEntries(Object.entries(entries).filter(([, p]) => existsSync(p)));

const { cli, open, ...rest } = entryPoints;
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
/**
 * One entry point as a CommonJS bundle (dist/NAME.cjs), for bin/palimpsest.js to run as a
 * vm.Script. import.meta.url, by which a bundle finds the worker bundles beside it, is made from
 * __filename.
 */
const cjs = (name, entry, options = {}) => {
  const url = `__${name}_url`;
  return build({
    entryPoints: { [name]: entry },
    outdir: 'dist',
    outExtension: { '.js': '.cjs' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    sourcemap: true,
    logLevel: 'warning',
    define: { 'import.meta.url': url },
    banner: { js: `var ${url} = require("node:url").pathToFileURL(__filename).href;` },
    ...options,
  });
};

if (entryPoints.ls) await cjs('ls', entryPoints.ls, { minify: true });

// The commands that open one session (inspect, view, events, tokens, validate, forensics) once
// more, as one CommonJS bundle (dist/open.cjs): bin/palimpsest.js compiles it as a vm.Script with
// a V8 code cache, which an ES module cannot take on Node 20, so that these commands skip most of
// the compiling (docs/performance.md, "Opening a real session: the commands"). esbuild splits only
// ES modules, so the bundle holds everything these commands import. Left out of it:
// - the commands main.ts imports only when run (serve, rerun, eval, …): bin/palimpsest.js runs
//   them from dist/cli.js, and here an import of one throws;
// - the token rank files (3.4 MB of source), loaded by require from node_modules when a count
//   needs them: a vm.Script cannot import() without --experimental-vm-modules.
const leftOut = {
  name: 'left-out-of-open',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (a) =>
      a.kind === 'dynamic-import' && a.importer.endsWith('src/main/cli/main.ts') ? { path: a.path, namespace: 'left-out' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'left-out' }, (a) => ({
      contents: `throw new Error(${JSON.stringify(`${a.path} is not in dist/open.cjs: run it from dist/cli.js`)});`,
      loader: 'js',
    }));
    b.onResolve({ filter: /^js-tiktoken\/ranks\// }, (a) =>
      a.kind === 'require-call' ? { path: a.path, external: true } : { path: a.path, namespace: 'ranks' },
    );
    b.onLoad({ filter: /.*/, namespace: 'ranks' }, (a) => ({
      contents: `module.exports = require(${JSON.stringify(a.path)});`,
      loader: 'js',
    }));
  },
};
if (open) await cjs('open', open, { plugins: [leftOut] });
