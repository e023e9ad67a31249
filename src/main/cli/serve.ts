import { createHostContext } from '../host/host-context';
import { startWebHost, type WebHost } from '../web/server';
import { MEMORY_BUDGET_ENV, parseBudgetMb } from '../api/session-budget';
import type { EndpointApprovals } from '../providers/endpoints';
import { intFlag, stringFlag, UsageError, type ParsedArgs } from '../command/args';
import { CAPTURE_SPEC, captureFlags } from './capture-flag';
import { approvedEndpoints } from './endpoints';
import type { Io } from '../command/io';
import { firstSignal } from '../command/signals';

/** Flags of `palimpsest serve`. */
export const SERVE_SPEC: Record<string, 'value' | 'boolean'> = {
  port: 'value',
  'memory-budget': 'value',
  'allow-endpoint': 'value',
  ...CAPTURE_SPEC,
};

export interface ServeOptions {
  readonly paths: readonly string[];
  /** Captures joined to the one session file of `paths` (`--capture`). */
  readonly captures?: readonly string[];
  readonly port: number;
  /** Endpoints re-runs and evals may send keys to besides the providers' own (--allow-endpoint). */
  readonly endpoints?: EndpointApprovals;
  /** Bytes the open sessions may take together (src/main/api/session-budget.ts). Default: from the environment or the heap limit. */
  readonly memoryBudget?: number;
  /** Resolves (or aborts) when the host should stop. Default: SIGINT or SIGTERM. */
  readonly until?: Promise<void>;
  /** Called once the host listens (tests). */
  readonly onListening?: (host: WebHost) => void;
}

/** How long closing the host may take before the process stops without it. */
const CLOSE_GRACE_MS = 500;
/** How long the process may stay up after closing, before the signal is raised again to end it. */
const EXIT_GRACE_MS = 500;

/** Waits for `p`, but no longer than `ms`. */
async function within(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([p, new Promise((ok) => (timer = setTimeout(ok, ms)))]);
  clearTimeout(timer);
}

/**
 * Ends the process by `signal`, as if it had not been caught, unless it has ended by itself within
 * EXIT_GRACE_MS. Work that cannot be cancelled — a read stuck on a slow or hung file system, on one
 * of the threads Node gives file operations — keeps the event loop alive, and process.exit() would
 * wait for those threads too; a signal with its default action does not.
 */
function endSoon(signal: NodeJS.Signals): void {
  setTimeout(() => {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  }, EXIT_GRACE_MS).unref();
}

/** Serve the renderer and the API for these sessions until told to stop; then close cleanly. */
export async function serve(options: ServeOptions, io: Io): Promise<number> {
  // Session files are opened; folders are listed in the library (src/main/host/host-context.ts).
  const context = await createHostContext({
    paths: options.paths,
    captures: options.captures ?? [],
    memoryBudget: options.memoryBudget,
    ...(options.endpoints ? { endpoints: options.endpoints } : {}),
  });
  const handlers = context.handlers;
  if (context.missing.length > 0) {
    context.dispose();
    throw new UsageError(`${context.missing[0] ?? ''}: no such file or folder`);
  }
  if (context.unusable.length > 0) {
    context.dispose();
    throw new UsageError(context.unusable[0] ?? '');
  }
  let host: WebHost;
  try {
    host = await startWebHost({ port: options.port, handlers });
  } catch (err: unknown) {
    context.dispose();
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new UsageError(`port ${options.port} is in use; pick another with --port, or --port 0 for any free one`);
    if (code === 'EACCES') throw new UsageError(`not allowed to listen on port ${options.port}`);
    throw err;
  }
  const watch = options.until ? null : firstSignal();
  io.out(`Palimpsest is serving ${options.paths.length === 0 ? 'no session' : options.paths.join(', ')} on 127.0.0.1 only.`);
  io.out("Open this URL (it carries this launch's access token; keep it private):");
  io.out(`  ${host.url}`);
  if (!host.rendererDir)
    io.err('palimpsest serve: the renderer is not built (no out/renderer): run `npm run build`; the API still answers.');
  io.out(`Remote machine? Forward the same port: ssh -L ${host.port}:127.0.0.1:${host.port} <host>. Stop with Ctrl-C.`);
  options.onListening?.(host);
  let signal: NodeJS.Signals | null = null;
  try {
    if (watch) signal = await watch.stopped;
    else await options.until;
    // Open connections are dropped; a handler still at work must not hold the shutdown.
    await within(host.dispose(), CLOSE_GRACE_MS);
    // Running re-runs and evals stop (recorded as cancelled), then the sessions close.
    context.dispose();
    io.out('Palimpsest stopped serving.');
  } finally {
    watch?.release();
  }
  if (signal) endSoon(signal);
  return 0;
}

/** The memory budget from --memory-budget, else the environment; a value that is not a positive number of MB is bad usage. */
function memoryBudget(args: ParsedArgs, env: NodeJS.ProcessEnv): number | undefined {
  const flag = args.flags.get('memory-budget');
  const [text, name] =
    flag !== undefined ? [stringFlag(args, 'memory-budget') ?? '', '--memory-budget'] : [env[MEMORY_BUDGET_ENV], `$${MEMORY_BUDGET_ENV}`];
  if (text === undefined) return undefined;
  const bytes = parseBudgetMb(text);
  if (bytes === null) throw new UsageError(`${name} must be a positive number of MB, got "${text}"`);
  return bytes;
}

/** `palimpsest serve [paths…] [--capture FILE]… [--port N] [--memory-budget MB]` */
export async function serveCommand(args: ParsedArgs, io: Io): Promise<number> {
  const port = intFlag(args, 'port') ?? 0;
  if (port > 65535) throw new UsageError(`--port must be at most 65535, got ${port}`);
  return serve(
    {
      paths: args.positional,
      captures: captureFlags(args),
      port,
      memoryBudget: memoryBudget(args, process.env),
      endpoints: approvedEndpoints(args, []),
    },
    io,
  );
}
