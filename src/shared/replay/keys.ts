/**
 * Sort keys of surface positions. An inserted item must sort strictly between two neighbours however
 * many times the same gap is split (a checkpoint composed before the raw tail, compaction after
 * compaction), which floating-point midpoints cannot do past ~50 splits. Keys are therefore
 * strings compared by code unit, read as base-36 fractions (fractional indexing): there is always
 * room between two of them.
 */

const DIGITS = '0123456789abcdefghijklmnopqrstuvwxyz';

/**
 * The key of the n-th appended position. A length prefix makes longer numbers sort after shorter
 * ones; the trailing middle digit keeps every key free of trailing zeros, which `between` needs.
 */
export function appendKey(n: number): string {
  const digits = n.toString(36);
  return String.fromCharCode(0x61 + digits.length) + digits + 'i';
}

/** A fraction strictly between `a` and `b` (`a` < `b`; `b` null: no upper bound). Neither ends in '0'. */
function midpoint(a: string, b: string | null): string {
  if (b !== null) {
    let n = 0;
    while ((a[n] ?? '0') === b[n]) n++;
    if (n > 0) return b.slice(0, n) + midpoint(a.slice(n), b.slice(n));
  }
  const digitA = a.length > 0 ? DIGITS.indexOf(a[0] as string) : 0;
  const digitB = b !== null ? DIGITS.indexOf(b[0] as string) : DIGITS.length;
  if (digitB - digitA > 1) return DIGITS[Math.round((digitA + digitB) / 2)] as string;
  if (b !== null && b.length > 1) return b.slice(0, 1);
  return (DIGITS[digitA] as string) + midpoint(a.slice(1), null);
}

/** A key that sorts strictly between `before` (null: the start) and `after`. */
export function keyBetween(before: string | null, after: string): string {
  return midpoint(before ?? '', after);
}

/** A key that sorts strictly after `before`, with no upper bound. */
export function keyAfter(before: string): string {
  return midpoint(before, null);
}

/**
 * Keys of items that left the surface. Every removal adds its items' keys, but only an insert or a
 * restore asks about them, and many logs never do either: the keys are listed as they come and made
 * into a set at the first question, instead of hashing every key of every removal into a set while
 * replaying (half a million on the bench's 1M-event session; docs/performance.md, "Replay and views").
 */
export class VacatedKeys {
  private list: string[] = [];
  private set: Set<string> | null = null;

  add(key: string): void {
    if (this.set) this.set.add(key);
    else this.list.push(key);
  }

  has(key: string): boolean {
    if (!this.set) {
      this.set = new Set(this.list);
      this.list = [];
    }
    return this.set.has(key);
  }
}
