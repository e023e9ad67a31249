import { useEffect, useRef } from 'react';

/**
 * Does each ask to scroll once (`nonce`), as soon as its row is in the list (`row < total`), and
 * not again when the list changes after (events appended, another request's view), which would
 * take the user back from where they scrolled since.
 */
export function useScrollOnce(
  ask: { readonly nonce: number } | null,
  row: number | null,
  total: number,
  scrollTo: (row: number) => void,
): void {
  const done = useRef<number | null>(null);
  useEffect(() => {
    if (!ask || row === null || ask.nonce === done.current || row >= total) return;
    done.current = ask.nonce;
    scrollTo(row);
  }, [ask, row, total, scrollTo]);
}
