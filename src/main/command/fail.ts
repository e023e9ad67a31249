/*
 * The one way a command run with `--json` fails (docs/cli.md, "Errors"): exit 2 with this object on
 * stdout, so that a script can tell why. It is the shape an unreadable session already has in a
 * directory listing (`palimpsest`, `path`, `error`, `diagnostics`), with a `code` added. Nothing
 * here imports the rest of the CLI: the `ls` bundle uses it too.
 */

/** Why a command could not run: bad usage, input it cannot read, nothing to do, a failed job, a bug. */
export type FailureCode = 'USAGE' | 'UNREADABLE' | 'NO_SESSIONS' | 'FAILED' | 'INTERNAL';

/** A command that cannot do what it was asked (exit 2), with the code its JSON error carries. */
export class CommandFailure extends Error {
  constructor(
    readonly code: FailureCode,
    message: string,
  ) {
    super(message);
  }
}

/** The `--json` shapes' version (the CLI's JSON_VERSION; kept equal to it). */
const FAILURE_JSON_VERSION = 1;

/** Whether the arguments ask for JSON (before they are parsed, which may itself fail). */
export function wantsJson(argv: readonly string[]): boolean {
  for (const a of argv) {
    if (a === '--') return false;
    if (a === '--json' || a.startsWith('--json=')) return true;
  }
  return false;
}

/** The JSON error: `{palimpsest, path?, error, code, diagnostics}`. */
export function failureJson(code: FailureCode, message: string, path?: string, diagnostics: readonly unknown[] = []): string {
  return JSON.stringify(
    { palimpsest: FAILURE_JSON_VERSION, ...(path !== undefined ? { path } : {}), error: message, code, diagnostics },
    null,
    2,
  );
}
