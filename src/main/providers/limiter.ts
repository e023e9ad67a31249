import type { PinnedModel } from '../../shared/rerun/pinned';

/*
 * Concurrency per provider endpoint: MapReduce runs several summary calls at once (cosh: up to
 * four maps), and several strategies may share one endpoint. A slot is held for one HTTP attempt
 * only — never across a backoff sleep — and a queued caller whose signal aborts leaves the queue at
 * once without taking a slot.
 */

export type Release = () => void;

// Ours, not p-limit: p-limit cannot drop one queued caller whose signal aborts (only clearQueue, for all).
export class Limiter {
  private active = 0;
  private readonly queue: { grant: (r: Release) => void }[] = [];

  readonly limit: number;

  /** A limit below 1 (or not a number) would deadlock every caller; it is taken as 1. */
  constructor(limit: number) {
    this.limit = Number.isFinite(limit) ? Math.max(1, Math.floor(limit)) : 1;
  }

  get running(): number {
    return this.active;
  }

  get waiting(): number {
    return this.queue.length;
  }

  /** A slot, or null when the signal aborted first. Call the release exactly once. */
  acquire(signal: AbortSignal): Promise<Release | null> {
    if (signal.aborted) return Promise.resolve(null);
    if (this.active < this.limit) {
      this.active++;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve) => {
      const entry = {
        grant: (r: Release) => {
          signal.removeEventListener('abort', onAbort);
          resolve(r);
        },
      };
      const onAbort = (): void => {
        const i = this.queue.indexOf(entry);
        if (i >= 0) this.queue.splice(i, 1);
        resolve(null);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.queue.push(entry);
    });
  }

  private releaser(): Release {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.queue.shift();
      // The slot passes straight to the next waiter, so `active` never dips and overshoots.
      if (next) next.grant(this.releaser());
      else this.active--;
    };
  }
}

export interface LimiterOptions {
  /** Concurrent requests per endpoint unless configured otherwise (default 4). */
  readonly defaultLimit?: number;
  /** Limits by endpoint key ("anthropic|https://…") or by provider ("anthropic"); the key wins. */
  readonly limits?: Readonly<Record<string, number>>;
}

/** One Limiter per provider + baseUrl. */
export class ProviderLimiters {
  private readonly byKey = new Map<string, Limiter>();

  constructor(private readonly opts: LimiterOptions = {}) {}

  static key(model: Pick<PinnedModel, 'provider' | 'baseUrl'>): string {
    return `${model.provider}|${model.baseUrl ?? 'default'}`;
  }

  for(model: Pick<PinnedModel, 'provider' | 'baseUrl'>): Limiter {
    const key = ProviderLimiters.key(model);
    let l = this.byKey.get(key);
    if (!l) {
      l = new Limiter(this.opts.limits?.[key] ?? this.opts.limits?.[model.provider] ?? this.opts.defaultLimit ?? 4);
      this.byKey.set(key, l);
    }
    return l;
  }
}
