/*
 * The numbered progress events of one host job (a re-run, an eval), for watchers that long-poll:
 * the last `keep` events are kept; a watcher asks for the events after the last index it saw and,
 * when there is none yet and the job still runs, waits (bounded) for the next one. At most
 * `maxWaiters` wait at once; more get an immediate (possibly empty) answer.
 */
export class JobEventLog<E> {
  private readonly events: E[] = [];
  /** Index of events[0]. */
  private base = 0;
  private nextIndex = 0;
  private readonly waiters = new Set<() => void>();

  constructor(
    private readonly keep = 1000,
    private readonly maxWaiters = 16,
  ) {}

  /** The index the next event will get. */
  get next(): number {
    return this.nextIndex;
  }

  /** Adds the event made for the next index and wakes every watcher. */
  push(make: (index: number) => E): E {
    const event = make(this.nextIndex++);
    this.events.push(event);
    if (this.events.length > this.keep) {
      this.events.shift();
      this.base++;
    }
    this.wakeAll();
    return event;
  }

  wakeAll(): void {
    for (const wake of this.waiters) wake();
    this.waiters.clear();
  }

  /** The events after index `after`, waiting up to `waitMs` for one while `running()` holds. */
  async after(after: number, waitMs: number, running: () => boolean): Promise<{ events: E[]; next: number }> {
    if (this.nextIndex <= after && running() && waitMs > 0 && this.waiters.size < this.maxWaiters) {
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          clearTimeout(timer);
          this.waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, waitMs);
        this.waiters.add(wake);
      });
    }
    const from = Math.max(after, this.base);
    return { events: this.events.slice(from - this.base), next: this.nextIndex };
  }
}
