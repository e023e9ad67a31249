// Run by exit-guard.test.ts in a process of its own: a command that settles with `ARG`, or never
// settles ("pending"), under the guard the CLI runs every command with.
import { exitWhenSettled } from '../../../src/main/cli/exit-guard';

const arg = process.argv[2];
const command =
  arg === 'pending' ? new Promise<number>(() => {}) : arg === 'throw' ? Promise.reject(new Error('boom')) : Promise.resolve(Number(arg));
exitWhenSettled(command, (text) => process.stderr.write(text));
