/**
 * A copy of an import's state that shares nothing mutable with the original, so that the copy can
 * be ended (its last responses written, its findings told) while the original goes on reading
 * the lines appended later (read-on.ts). Arrays, Maps, Sets and objects are copied, with their
 * prototypes, as a graph (an object reached twice is copied once); `swap` names objects to put
 * in place of others (the log the state writes into becomes the copy's log). Strings, numbers and
 * other primitives are immutable; byte arrays are shared, as nothing changes a line's bytes once
 * read.
 *
 * Functions are not copied: a function kept as state (a closure over the original) would go on
 * changing the original from the copy, so one found anywhere but on a prototype throws
 * `UnforkableState`, and the caller reads the session again instead.
 */
export class UnforkableState extends Error {}

export function forkState<T>(root: T, swap: ReadonlyMap<object, object>): T {
  const seen = new Map<object, unknown>(swap);
  // Copied containers whose contents are still to copy: a loop, not recursion, since a
  // persistent list of items is as deep as the session is long.
  const todo: [object, object][] = [];
  // `where`: the name the value was found under, for the error only.
  const shell = (v: unknown, where: string): unknown => {
    if (typeof v === 'function') throw new UnforkableState(`the import keeps a function in "${where}"`);
    if (typeof v !== 'object' || v === null) return v;
    const had = seen.get(v);
    if (had !== undefined) return had;
    if (ArrayBuffer.isView(v) || v instanceof ArrayBuffer || v instanceof RegExp || v instanceof Date) return v;
    if (v instanceof Promise || v instanceof WeakMap || v instanceof WeakSet)
      throw new UnforkableState(`the import keeps a ${v.constructor.name} in "${where}"`);
    const proto = Object.getPrototypeOf(v) as object | null;
    const builtIn = Array.isArray(v) ? Array.prototype : v instanceof Map ? Map.prototype : v instanceof Set ? Set.prototype : proto;
    if (proto !== builtIn)
      throw new UnforkableState(
        `the import keeps a ${builtIn === Array.prototype ? 'subclass of Array' : 'subclass of Map or Set'} in "${where}"`,
      );
    const out: object = Array.isArray(v)
      ? new Array<unknown>(v.length)
      : v instanceof Map
        ? new Map()
        : v instanceof Set
          ? new Set()
          : (Object.create(proto) as object);
    seen.set(v, out);
    todo.push([v, out]);
    return out;
  };
  const result = shell(root, '') as T;
  for (let next = todo.pop(); next !== undefined; next = todo.pop()) {
    const [from, to] = next;
    if (Array.isArray(from)) {
      const out = to as unknown[];
      for (let i = 0; i < from.length; i++) out[i] = shell(from[i], '[]');
    } else if (from instanceof Map) {
      for (const [k, x] of from) (to as Map<unknown, unknown>).set(shell(k, 'a key'), shell(x, 'a value'));
    } else if (from instanceof Set) {
      for (const x of from) (to as Set<unknown>).add(shell(x, 'a member'));
    } else {
      const out = to as Record<string, unknown>;
      for (const key of Object.keys(from)) out[key] = shell((from as Record<string, unknown>)[key], key);
    }
  }
  return result;
}
