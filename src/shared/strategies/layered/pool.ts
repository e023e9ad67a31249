/**
 * Runs tasks in order with at most `limit` in flight. When a task answers 'stop' (a provider failure
 * or a cancellation) or the signal aborts, nothing new is scheduled and the calls already in flight
 * are drained — awaited, so their results are kept (cosh: "A provider failure stops new
 * scheduling, drains successful in-flight calls"). Returns the tasks never started, in order.
 */
export async function runPool<T>(
  tasks: readonly T[],
  limit: number,
  signal: AbortSignal,
  run: (task: T) => Promise<'continue' | 'stop'>,
): Promise<T[]> {
  let next = 0;
  let stopped = false;
  const worker = async (): Promise<void> => {
    while (!stopped && !signal.aborted && next < tasks.length) {
      const task = tasks[next++] as T;
      if ((await run(task)) === 'stop') stopped = true;
    }
  };
  const workers = Array.from({ length: Math.max(1, Math.min(limit, tasks.length)) }, () => worker());
  await Promise.all(workers);
  return tasks.slice(next);
}
