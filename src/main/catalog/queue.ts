/*
 * One writer of the session index at a time in this process: a search and the health report may
 * both bring the index up to date, and two updates of one database at once would fight over its
 * write lock. Each job starts when the ones queued before it have settled.
 */

let tail: Promise<unknown> = Promise.resolve();

export function exclusive<T>(job: () => Promise<T>): Promise<T> {
  const run = tail.then(job);
  tail = run.catch(() => null);
  return run;
}
