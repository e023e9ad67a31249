/*
 * The session registry asks it; the library and the eval runner's path checks implement or hold
 * one. It lives below all three so that none of them imports another for it.
 */

/** Decides which paths a host may open (src/main/library/library.ts: the library's sessions and folders). */
export interface PathPolicy {
  allows(path: string): Promise<boolean>;
  /** Why `path` may not be opened, in a sentence for the user. */
  refusal(path: string): string;
}
