import { useEffect, useState } from 'react';
import type { ApiError, ApiResult } from '../../../shared/api/contract';

export type Query<T> =
  | { readonly state: 'idle' }
  | { readonly state: 'loading'; readonly value: T | null }
  | { readonly state: 'ready'; readonly value: T }
  | { readonly state: 'error'; readonly error: ApiError };

/**
 * Ask the API when `key` changes (null: ask nothing) and keep the answer. While a new answer is on
 * its way the previous value stays visible (`loading` carries it); answers to an older key are dropped.
 * `refresh` > 0 asks again every that many ms while `again(value)` says so (counting in progress).
 */
export function useQuery<T>(
  key: string | null,
  ask: () => Promise<ApiResult<T>>,
  refresh = 0,
  again: (v: T) => boolean = () => false,
): Query<T> {
  const [q, setQ] = useState<Query<T>>({ state: 'idle' });
  useEffect(() => {
    if (key === null) {
      setQ({ state: 'idle' });
      return;
    }
    let live = true;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const run = (): void => {
      setQ((prev) => ({ state: 'loading', value: prev.state === 'ready' || prev.state === 'loading' ? prev.value : null }));
      void ask().then((r) => {
        if (!live) return;
        if (!r.ok) return setQ({ state: 'error', error: r.error });
        setQ({ state: 'ready', value: r.value });
        if (refresh > 0 && again(r.value)) timer = setTimeout(run, refresh);
      });
    };
    run();
    return () => {
      live = false;
      if (timer) clearTimeout(timer);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `ask` and `again` are new functions each render and `refresh` a constant; `key` says when the question changes.
  }, [key]);
  return q;
}

/** The value to show: the answer, or the previous one while loading. */
export function valueOf<T>(q: Query<T>): T | null {
  return q.state === 'ready' ? q.value : q.state === 'loading' ? q.value : null;
}
