/**
 * What Palimpsest's replay (src/shared/replay/fold.ts) will make of the surface operations this
 * importer emits, simulated with the same rules: sort keys given once for life (append: the next
 * key; replace: the key of the first replaced item; insert: a key between the target and its
 * predecessor (src/shared/replay/keys.ts);
 * restore: the item's own key), removal and restore by key, masks cleared on removal. The
 * importer compares it with cosh's composition to choose operations and to prove they agree.
 */
import { appendKey, keyBetween } from '../../../shared/replay/keys';

export class CanonSurface {
  private keys: string[] = [];
  private ids: string[] = [];
  private readonly maskedIds = new Set<string>();
  private readonly keyById = new Map<string, string>();
  private nextKey = 0;

  clone(): CanonSurface {
    const c = new CanonSurface();
    c.keys = this.keys.slice();
    c.ids = this.ids.slice();
    for (const m of this.maskedIds) c.maskedIds.add(m);
    for (const [k, v] of this.keyById) c.keyById.set(k, v);
    c.nextKey = this.nextKey;
    return c;
  }

  get order(): readonly string[] {
    return this.ids;
  }

  get masked(): ReadonlySet<string> {
    return this.maskedIds;
  }

  private lowerBound(key: string): number {
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.keys[mid] as string) < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  position(id: string): number {
    const key = this.keyById.get(id);
    if (key === undefined) return -1;
    const i = this.lowerBound(key);
    return i < this.keys.length && this.keys[i] === key && this.ids[i] === id ? i : -1;
  }

  isLive(id: string): boolean {
    return this.position(id) >= 0;
  }

  hasKey(id: string): boolean {
    return this.keyById.has(id);
  }

  /** The fold's `add`: idempotent when the key is taken. */
  private add(id: string, key: string): boolean {
    this.keyById.set(id, key);
    const i = this.lowerBound(key);
    if (this.keys[i] === key) return false;
    this.keys.splice(i, 0, key);
    this.ids.splice(i, 0, id);
    return true;
  }

  append(id: string): void {
    this.add(id, appendKey(this.nextKey++));
  }

  /** Insert before `before`, or append when it is not live (the fold's fallback). */
  insertBefore(id: string, before: string): void {
    const pos = this.position(before);
    if (pos < 0) {
      this.append(id);
      return;
    }
    const bKey = this.keys[pos] as string;
    const prevKey = pos > 0 ? (this.keys[pos - 1] as string) : null;
    this.add(id, keyBetween(prevKey, bKey));
  }

  /** Replace the live range `from..to` by `id`, or append when either end is not live. */
  replace(id: string, from: string, to: string): string[] {
    let pa = this.position(from);
    let pb = this.position(to);
    if (pa < 0 || pb < 0) {
      this.append(id);
      return [];
    }
    if (pa > pb) [pa, pb] = [pb, pa];
    const key = this.keys[pa] as string;
    const removed = this.ids.slice(pa, pb + 1);
    for (const r of removed) this.remove(r);
    this.add(id, key);
    return removed;
  }

  remove(id: string): boolean {
    const i = this.position(id);
    if (i < 0) return false;
    this.keys.splice(i, 1);
    this.ids.splice(i, 1);
    this.maskedIds.delete(id);
    return true;
  }

  /** Put a removed item back at its key; false when it has none, is live, or its key is taken. */
  restore(id: string): boolean {
    const key = this.keyById.get(id);
    if (key === undefined || this.isLive(id)) return false;
    return this.add(id, key);
  }

  /** Would a restore of `id` succeed? */
  canRestore(id: string): boolean {
    const key = this.keyById.get(id);
    if (key === undefined || this.isLive(id)) return false;
    const i = this.lowerBound(key);
    return this.keys[i] !== key;
  }

  mask(id: string, on: boolean): void {
    if (!this.isLive(id)) return;
    if (on) this.maskedIds.add(id);
    else this.maskedIds.delete(id);
  }
}
