import { VERIFIED_VERSIONS } from './versions';

/*
 * Where a client version was seen compacting automatically with one model, from the version table
 * (./versions.ts, generated from the saved fidelity runs). The trigger moved from version to
 * version and with the model (Claude Code 2.1.9 compacts a 200,000-token sonnet-4-5 conversation
 * at about 155,000, 2.1.97 a sonnet-4-6 one at about 167,000), so a rule that judges a trigger reads
 * it here for the exact version and model a log names, and for no other.
 */

export interface SeenAutoCompact {
  readonly client: string;
  readonly version: string;
  readonly model: string;
  /** The largest conversation the next call went out with, uncompacted (null: none seen). */
  readonly below: number | null;
  /** The smallest conversation after which an automatic compaction came. */
  readonly at: number;
}

/** The sizes seen for this client, version and model; null when the table has no compaction for them. */
export function seenAutoCompact(client: string, version: string | undefined, model: string | undefined): SeenAutoCompact | null {
  if (version === undefined || model === undefined) return null;
  const row = VERIFIED_VERSIONS.find((v) => v.client === client && v.version === version);
  const m = row?.autoCompact.find((a) => a.model === model);
  if (!m || m.at === null) return null;
  return { client, version, model, below: m.below, at: m.at };
}
