/*
 * A large session is shown before it is all read (docs/session-view.md, "Opening a large session"):
 * the registry reads the file's first whole lines, shows them as a partial session marked so, reads
 * the whole file behind it and puts the whole session in its place under the same id. The sizes are
 * measured in docs/performance.md, "First view of a large session".
 */

/**
 * Files from this size on open with a first view. A file this size opened whole reached the first
 * model view in about a second on the development machine; below it a first view would show a
 * partial session for less time than the second read costs.
 */
export const FIRST_VIEW_MIN_BYTES = 24 * 1024 * 1024;

/** The first view reads the file's lines up to the first line end at or after this many bytes. */
export const FIRST_VIEW_PREFIX_BYTES = 4 * 1024 * 1024;

/** When a registry opens with a first view: files of at least `minBytes`, first `prefixBytes` read. */
export interface FirstViewOptions {
  readonly minBytes: number;
  readonly prefixBytes: number;
  /** For tests: awaited before the whole is read behind a first view, so that a test can look at the first view for as long as it needs. */
  readonly holdWhole?: () => Promise<void>;
}

export const FIRST_VIEW: FirstViewOptions = { minBytes: FIRST_VIEW_MIN_BYTES, prefixBytes: FIRST_VIEW_PREFIX_BYTES };
