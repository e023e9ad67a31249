import { spawn } from 'node:child_process';
import { constants } from 'node:os';

/*
 * The recorded command: run with the proxy's settings in its environment and the terminal as its
 * own (stdio inherited). SIGINT and SIGTERM sent to palimpsest are passed on to it, and its exit
 * status becomes ours: its code, or 128 + the signal number when a signal ended it, as a shell
 * reports it.
 */

export interface ChildResult {
  readonly code: number;
  /** Why it could not be started (then code is 127, as a shell says for a missing command). */
  readonly error: string | null;
}

export function runChild(command: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<ChildResult> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'inherit', env });
    const forward = (signal: NodeJS.Signals) => {
      child.kill(signal);
    };
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    const done = (r: ChildResult) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolve(r);
    };
    child.once('error', (err: NodeJS.ErrnoException) => {
      done({ code: 127, error: `${command}: ${err.code === 'ENOENT' ? 'command not found' : err.message}` });
    });
    child.once('exit', (code, signal) => {
      if (code !== null) done({ code, error: null });
      else done({ code: 128 + (signal ? (constants.signals[signal] ?? 0) : 0), error: null });
    });
  });
}
