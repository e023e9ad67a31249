import { execFile } from 'node:child_process';

/** The built command, run as a user runs it (`npm run build:cli` builds dist/cli.js). */
export const BIN = 'bin/palimpsest.js';

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built command. A run past `timeoutMs` is killed and gets code -1, so a hang fails the
 * test that waits on it instead of holding the suite. `env`: the whole environment (default: this process's).
 */
export function runBuilt(args: readonly string[], timeoutMs: number, env?: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { maxBuffer: 64 * 1024 * 1024, timeout: timeoutMs, killSignal: 'SIGKILL', ...(env ? { env } : {}) },
      (err, stdout, stderr) => {
        const code = err && typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : err ? -1 : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
