// The file, not the bare subpath: semver has no exports map, and the app's main bundle leaves it to Node's ESM loader.
import parse from 'semver/functions/parse.js';
import type { CompatClient, VerifiedVersion } from './types';
import { VERIFIED_VERSIONS } from './versions';

/*
 * The importers' version checks: a log written by a client newer than every version the fidelity
 * suite ran on the wire gets a warning naming the newest verified one.
 */

/**
 * Semantic-version order, from semver: numeric parts, and a prerelease below its release
 * (0.104.0-alpha.1 < 0.104.0). null: either is not a version.
 */
export function compareVersions(a: string, b: string): number | null {
  const pa = parse(a);
  const pb = parse(b);
  return pa && pb ? pa.compare(pb) : null;
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
