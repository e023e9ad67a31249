import { EXIT_UNUSABLE } from '../command/exit';

/**
 * Sets the exit code when `command` settles — and makes sure a command never ends silently: if the
 * event loop empties while the command is still pending (it awaited something that holds no handle),
 * Node would end the process with exit code 0, telling a script all was well. Here that becomes an
 * internal error, exit 2, said on stderr. 'beforeExit' fires only when the loop empties, not on an
 * explicit process.exit (a closed pipe under `| head` still ends quietly with 0).
 */
export function exitWhenSettled(command: Promise<number>, writeErr: (text: string) => void): void {
  let settled = false;
  process.once('beforeExit', () => {
    if (settled) return;
    settled = true;
    writeErr('palimpsest: internal error: the command ended before it finished\n');
    process.exitCode = EXIT_UNUSABLE;
  });
  command.then(
    (code) => {
      settled = true;
      process.exitCode = code;
    },
    (err: unknown) => {
      settled = true;
      writeErr(`palimpsest: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = EXIT_UNUSABLE;
    },
  );
}
