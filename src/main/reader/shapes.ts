/**
 * One idle object of each class that a load makes afresh for every file and calls for every line,
 * kept for the life of the program.
 *
 * Why: V8 keeps a hidden class (map) only while some object of it lives; a class's maps after its
 * first are reached from it by weak links. A load's pipeline, decoder, splitter, importer and log
 * builder all die with the load, and the full GCs that follow free their maps. The optimised code
 * built for those maps is then thrown away ("reason: weak objects" under `node --trace-deopt`), the
 * next load makes new maps, and V8 optimises the same functions again while that load runs (on
 * s10mb, about a quarter more CPU per load: docs/performance.md, "Kept shapes"). An object of each
 * class, built by the same constructor and so holding the same map, keeps the code that one load
 * optimised for the next.
 *
 * Each object is small (empty buffers and counters) and holds nothing from any session.
 * The loader keeps them all in one place, before its first load (warmShapes, session/load.ts).
 * `PALIMPSEST_KEEP_SHAPES=0` keeps none, to measure what they are worth (docs/performance.md, "Kept shapes").
 */
const kept: object[] = [];
const keeping = process.env.PALIMPSEST_KEEP_SHAPES !== '0';

/** Keeps `o` (and so its hidden class) alive for the life of the program. */
export function keepShape(o: object): void {
  if (keeping) kept.push(o);
}

/**
 * The objects kept, for the tests that each class has one and that no load ever used them.
 * @internal
 */
export function keptShapes(): readonly object[] {
  return kept;
}
