// Run by exit-guard.test.ts in a process of its own: a command that settles with `ARG`, or never
// settles ("pending"), optionally ended by process.exit(0) ("exit0"), under the guard the CLI runs every command with.
import { exitWhenSettled } from '../../../src/main/cli/exit-guard';

const arg = process.argv[2];
const command =
  arg === 'pending' ? new Promise<number>(() => {}) : arg === 'throw' ? Promise.reject(new Error('boom')) : Promise.resolve(Number(arg));
exitWhenSettled(command, (text) => process.stderr.write(text));
// The CLI ends a command on purpose this way when its output pipe closes (`| head`).
if (process.argv[3] === 'exit0') process.exit(0);
