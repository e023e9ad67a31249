/*
 * The entry of dist/open.cjs: the CLI (index.ts) for the commands that open one session (inspect,
 * view, events, tokens, validate, forensics), built as one CommonJS bundle that bin/palimpsest.js
 * compiles as a vm.Script with a V8 code cache (docs/performance.md, "Opening a real session: the
 * commands"). The commands loaded only when run (serve, rerun, eval, …) are left out of it:
 * bin/palimpsest.js hands them to dist/cli.js.
 *
 * The two exports are for the loader: it writes its code cache only where the CLI itself would
 * keep a cache (the same folder, outside every harness's folder).
 */
import './index';

export { harnessFolderHolding, indexDir } from '../discovery/cache-folder';
