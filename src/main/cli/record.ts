import { version } from '../../../package.json';
import { intFlag, stringFlag, UsageError, type ParsedArgs } from '../command/args';
import type { Io } from '../command/io';
import { CaptureFile, defaultCapturePath } from '../record/capture-file';
import { runChild } from '../record/child';
import { startRecordingProxy, type RecordingProxy } from '../record/proxy';
import { parseUpstreams, PROVIDERS, upstreamText } from '../record/routes';
import { clientEnv, codexSetting } from '../record/settings';
import { RecordStats } from '../record/stats';
import { StatusLine, type StatusOutput } from '../record/status-line';
import { firstSignal } from '../command/signals';

/** Flags of `palimpsest record`. */
export const RECORD_SPEC: Record<string, 'value' | 'boolean'> = { out: 'value', upstream: 'value', port: 'value', listen: 'boolean' };

/** How long closing waits for exchanges still in flight before cutting them. */
const CLOSE_GRACE_MS = 2_000;

export interface RecordOptions {
  /** Where the live status goes (default: process.stderr). */
  readonly status?: StatusOutput;
  /** --listen: resolves when the proxy should stop (default: SIGINT or SIGTERM). */
  readonly until?: Promise<unknown>;
  /** Called once the proxy listens (tests). */
  readonly onListening?: (proxy: RecordingProxy) => void;
  readonly env?: NodeJS.ProcessEnv;
}

/** `palimpsest record [--out FILE] [--upstream [PROVIDER=]URL]… [--port N] (--listen | -- <command> [args…])` */
export async function recordCommand(args: ParsedArgs, io: Io, options: RecordOptions = {}): Promise<number> {
  const listen = args.flags.has('listen');
  const [command, ...commandArgs] = args.positional;
  if (listen && command !== undefined) throw new UsageError('--listen runs the proxy alone: give it no command');
  if (!listen && command === undefined) throw new UsageError('record needs a command to run (`record -- <command> [args…]`) or --listen');
  const port = intFlag(args, 'port') ?? 0;
  if (port > 65535) throw new UsageError(`--port must be at most 65535, got ${port}`);
  const upstreams = parseUpstreams(args.lists.get('upstream') ?? []);
  const env = options.env ?? process.env;
  const out = stringFlag(args, 'out');
  const path = out ?? defaultCapturePath(env);

  const capture = await CaptureFile.create(
    path,
    {
      writer: `palimpsest ${version}`,
      startedAt: new Date().toISOString(),
      cwd: process.cwd(),
      // The command's name only: its arguments may carry secrets.
      ...(command !== undefined ? { command } : {}),
      upstreams: Object.fromEntries(PROVIDERS.map((p) => [p, upstreamText(upstreams[p])])),
    },
    out === undefined,
  );
  const stats = new RecordStats();
  const statusOut = options.status ?? process.stderr;
  const status = new StatusLine(stats, statusOut);
  // Settings and notices go to stdout with --listen; with a command, stdout is the command's.
  const say = (text: string) => (listen ? io.out(text) : (status.clear(), io.err(text)));
  let proxy: RecordingProxy;
  try {
    proxy = await startRecordingProxy({
      upstreams,
      capture,
      stats,
      port,
      onWriteError: (err) => say(`palimpsest record: could not write to ${capture.path}: ${err.message}`),
    });
  } catch (err: unknown) {
    await capture.dispose();
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new UsageError(`port ${port} is in use; pick another with --port, or leave it out for any free one`);
    if (code === 'EACCES') throw new UsageError(`not allowed to listen on port ${port}`);
    throw err;
  }
  options.onListening?.(proxy);
  const base = proxy.url;
  const vars = clientEnv(base);

  let exit = 0;
  if (listen) {
    io.out(base);
    io.out(`Recording to ${capture.path}`);
    io.out('Point clients at the proxy:');
    for (const [k, v] of Object.entries(vars)) io.out(`  export ${k}=${v}`);
    io.out(`  codex ${codexSetting(base)}`);
    io.out('Stop with Ctrl-C.');
    const watch = options.until ? null : firstSignal();
    try {
      await (options.until ?? watch?.stopped);
    } finally {
      watch?.release();
    }
  } else {
    say(`palimpsest record: recording to ${capture.path}`);
    say(`palimpsest record: proxy ${base}; for Codex: codex ${codexSetting(base)}`);
    const result = await runChild(command as string, commandArgs, { ...env, ...vars });
    if (result.error) say(`palimpsest record: ${result.error}`);
    exit = result.code;
  }
  await proxy.close(CLOSE_GRACE_MS);
  await capture.dispose();
  status.finish();
  if (listen) io.out(`Recorded ${capture.lines} exchange${capture.lines === 1 ? '' : 's'} to ${capture.path}`);
  else io.err(`palimpsest record: ${capture.lines} exchange${capture.lines === 1 ? '' : 's'} in ${capture.path}`);
  return exit;
}
