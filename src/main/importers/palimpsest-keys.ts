/**
 * The key sets of the Palimpsest fast path, taken from the zod schema once at module load so they
 * follow it. A fast check tests each field's value by hand, so it names the fields it tests; the
 * keys it accepts are those names that the schema also declares. A field the schema drops is
 * refused at once (zod would strip it, and the fast path must give what zod gives); a field the
 * schema adds and no check tests sends its lines to zod (slower, still exact) until a check is
 * written: the test that every accepted set equals the schema's keys names it.
 */

/** A zod object: what the fast path reads of it is its shape's own keys. */
export interface Shaped {
  readonly shape: object;
}

export interface KeySet {
  /** What the set is for, as the test names it. */
  readonly name: string;
  /** The schema's keys. */
  readonly declared: readonly string[];
  /** The keys the fast check tests and the schema declares. */
  readonly accepted: ReadonlySet<string>;
}

const registry: KeySet[] = [];

/** An object with no keys: what a lookup below gives when the schema no longer has the member. */
const NONE: Shaped = { shape: {} };

/**
 * Every key set made so far (all of them once the fast path is loaded), for the test that each
 * accepts exactly what the schema declares.
 * @internal
 */
export function keySets(): readonly KeySet[] {
  return registry;
}

/** The keys a fast check accepts of `schema`: those of `tested` it declares. */
export function accepts(name: string, schema: Shaped, tested: readonly string[]): ReadonlySet<string> {
  const declared = Object.keys(schema.shape);
  const accepted: ReadonlySet<string> = new Set(tested.filter((k) => declared.includes(k)));
  registry.push({ name, declared, accepted });
  return accepted;
}

/** The member of a discriminated union whose discriminator `key` is `value`. */
export function member(union: { readonly options: readonly Shaped[] }, key: string, value: string): Shaped {
  for (const o of union.options) {
    const d = (o.shape as Record<string, { value?: unknown } | undefined>)[key];
    if (d?.value === value) return o;
  }
  // Gone from the schema: no key is accepted, so every such line goes to zod (the test names it).
  return NONE;
}

/** The object inside an optional or nullable field. */
export function inner(field: unknown): Shaped {
  let f = field as { unwrap?: () => unknown; shape?: object };
  while (f.shape === undefined && typeof f.unwrap === 'function') f = f.unwrap() as typeof f;
  return f.shape === undefined ? NONE : (f as Shaped);
}
