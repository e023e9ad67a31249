/**
 * Resolves on the first SIGINT or SIGTERM, with its name. The handlers stay installed until
 * `release`, so a second signal during shutdown (Ctrl-C reaches both `npm start` and this process,
 * which also forwards it) does not kill the process before it has closed cleanly.
 */
export function firstSignal(): { stopped: Promise<NodeJS.Signals>; release(): void } {
  let stop!: (signal: NodeJS.Signals) => void;
  const stopped = new Promise<NodeJS.Signals>((ok) => (stop = ok));
  const onSignal = (signal: NodeJS.Signals) => stop(signal);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    stopped,
    release() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
