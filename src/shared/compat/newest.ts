import type { CompatClient, VerifiedVersion } from './types';
import { VERIFIED_VERSIONS } from './versions';

/*
 * The importers' version checks: a log written by a client newer than every version the fidelity
 * suite ran on the wire gets a warning naming the newest verified one.
 */

/** Numeric compare of the leading `major.minor.patch` (null: not a version). */
export function compareVersions(a: string, b: string): number | null {
  const pa = /^(\d+)\.(\d+)\.(\d+)/.exec(a);
  const pb = /^(\d+)\.(\d+)\.(\d+)/.exec(b);
  if (!pa || !pb) return null;
  for (let i = 1; i <= 3; i++) {
    const d = Number(pa[i]) - Number(pb[i]);
    if (d !== 0) return d;
  }
  return 0;
}

/** The newest version of a client verified on the wire, from a version table (null: none). */
export function newestVerified(client: CompatClient, table: readonly VerifiedVersion[] = VERIFIED_VERSIONS): string | null {
  let best: string | null = null;
  for (const v of table) {
    if (v.client !== client) continue;
    if (best === null || (compareVersions(v.version, best) ?? 0) > 0) best = v.version;
  }
  return best;
}

/** Whether `version` is newer than every verified version of the client (false when either is not a version). */
export function newerThanVerified(client: CompatClient, version: string, table: readonly VerifiedVersion[] = VERIFIED_VERSIONS): boolean {
  const newest = newestVerified(client, table);
  if (newest === null) return false;
  return (compareVersions(version, newest) ?? 0) > 0;
}
