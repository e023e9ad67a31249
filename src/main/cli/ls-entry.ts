import { writeSync } from 'node:fs';
import { EXIT_CLEAN, EXIT_UNUSABLE } from '../command/exit';
import { failureJson, wantsJson } from '../command/fail';
import { LS_SPEC, LsUsageError, parseLsArgs, runLs } from './ls-command';
import { serveAsWorker } from '../discovery/parallel';

/*
 * The entry of dist/ls.js: `palimpsest ls` on its own (bin/palimpsest.js hands `ls` to it, so a
 * listing does not load the whole CLI), and the code of discovery's scan workers. Exit codes are
 * the CLI's (docs/cli.md): 0 listed, 2 bad usage. Nothing here may import the rest of the CLI
 * (its argument parser alone loads every importer): this bundle must stay small.
 */

/** Set when some output went through a stream, which may still be writing it. */
let streamed = false;

/**
 * The listing goes to fd 1 (problems to fd 2) directly: synchronous, so everything is out when
 * the command ends and it can exit at once, and no stream is set up for it (for a pipe, a
 * net.Socket and its modules: about a millisecond). An fd that would block (a non-blocking pipe
 * that is full) gets the rest through its stream; a closed stdout (`palimpsest ls | head`) ends
 * the command quietly, with exit 0.
 */
function writeTo(fd: 1 | 2, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  let done = 0;
  try {
    while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EPIPE') {
      if (fd === 1) process.exit(0);
      return; // nobody reads the problems any more
    }
    if (code !== 'EAGAIN') throw e;
    const stream = fd === 1 ? process.stdout : process.stderr;
    if (!streamed && fd === 1) {
      stream.on('error', (err: NodeJS.ErrnoException) => {
        if (err.code === 'EPIPE') process.exit(0);
        throw err;
      });
    }
    streamed = true;
    stream.write(bytes.subarray(done));
  }
}

if (!serveAsWorker()) {
  const argv = process.argv.slice(2);
  if (argv[0] === 'ls') argv.shift();
  const io = {
    out: (text: string) => writeTo(1, `${text}\n`),
    err: (text: string) => writeTo(2, `${text}\n`),
  };
  (async () => runLs(parseLsArgs(argv, LS_SPEC), io, EXIT_CLEAN))().then(
    (code) => {
      process.exitCode = code;
      // All written (unless a stream took over): exit now rather than tear the heap down first.
      if (!streamed) process.exit();
    },
    (err: unknown) => {
      // Under --json an exit 2 prints the CLI's JSON error too (docs/cli.md, "Errors").
      const json = wantsJson(argv);
      if (err instanceof LsUsageError) {
        io.err(`palimpsest ls: ${err.message}`);
        if (json) io.out(failureJson('USAGE', err.message));
        process.exitCode = EXIT_UNUSABLE;
        return;
      }
      process.stderr.write(`palimpsest: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      if (json) io.out(failureJson('INTERNAL', `internal error: ${err instanceof Error ? err.message : String(err)}`));
      process.exitCode = EXIT_UNUSABLE;
    },
  );
}
