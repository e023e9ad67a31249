import { exitWhenSettled } from './exit-guard';
import { runCli } from './main';

// The `palimpsest` command. Output goes through one writer so a closed pipe (`| head`) ends quietly.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

const command = runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
});
exitWhenSettled(command, (text) => process.stderr.write(text));
