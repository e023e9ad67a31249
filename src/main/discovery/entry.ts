import { EXIT_CLEAN, EXIT_UNUSABLE } from '../cli/exit';
import { LS_SPEC, LsUsageError, parseLsArgs, runLs } from './ls-command';
import { serveAsWorker } from './parallel';

/*
 * The entry of dist/ls.js: `palimpsest ls` on its own (bin/palimpsest.js hands `ls` to it, so a
 * listing does not load the whole CLI), and the code of discovery's scan workers. Exit codes are
 * the CLI's (docs/cli.md): 0 listed, 2 bad usage. Nothing here may import the rest of the CLI
 * (its argument parser alone loads every importer): this bundle must stay small.
 */

if (!serveAsWorker()) {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
  const argv = process.argv.slice(2);
  if (argv[0] === 'ls') argv.shift();
  const io = {
    out: (text: string) => process.stdout.write(`${text}\n`),
    err: (text: string) => process.stderr.write(`${text}\n`),
  };
  (async () => runLs(parseLsArgs(argv, LS_SPEC), io, EXIT_CLEAN))().then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      if (err instanceof LsUsageError) {
        io.err(`palimpsest ls: ${err.message}`);
        process.exitCode = EXIT_UNUSABLE;
        return;
      }
      process.stderr.write(`palimpsest: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = EXIT_UNUSABLE;
    },
  );
}
