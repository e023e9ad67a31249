import { main } from './main';

// Entry of the fidelity bundle (dist/fidelity.js), built and run by scripts/fidelity.mjs.
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`fidelity: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
