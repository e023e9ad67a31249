import { compareVersions } from '../../shared/compat/newest';

/*
 * What Claude Code sends of parallel tool calls after it reloads a conversation from its log
 * (`--resume`, `--continue`): the importer (src/main/importers/claude-code) names it on the
 * envelope (HeaderEvent.reloadMayDrop) by version; the model view and the wire comparison
 * (src/main/wire) find the calls at risk (src/shared/replay/parallel-calls.ts).
 *
 * Parallel results are written one record each, and each record's parentUuid is the line of the
 * response that made its call; the next record hangs off the result written last. A reload walks
 * parentUuid back from the leaf, so it finds only that last result (and the calls on the lines
 * before its own). 2.0.77 and 2.1.9 send what the walk found and leave out every call that has no
 * result: on the wire after `--resume` (tools-resume of the saved runs) only the call answered
 * last and its result are sent. 2.1.97 and later put the other results back (the same run sends
 * both calls and both results). Between them, a client that repairs the pairing (the 2.1.39
 * package's code does: "[Tool result missing due to internal error]") may answer the call with an
 * error result of its own instead. The log does not say whether the client reloaded before a
 * request, so for a version not known to put them back, the other calls and their results are
 * unknown in every request after the turn that made them: sent, left out, or (a result) replaced.
 */

/** The oldest version seen putting the other parallel results back after a reload. */
const FIRST_RECOVERING = '2.1.97';

/** Whether Claude Code `version` is known to send every parallel call and result after a reload. */
export function recoversParallelResults(version: string | undefined): boolean {
  const d = version === undefined ? null : compareVersions(version, FIRST_RECOVERING);
  return d !== null && d >= 0;
}

/** The sentence the envelope carries (HeaderEvent.reloadMayDrop) for a version that may leave them out. */
export function parallelDropWhy(version: string | undefined): string {
  return `after a reload (--resume, --continue) Claude Code ${version ?? '(version not recorded)'} may leave out a parallel tool call and its result that are not on the parentUuid chain, or answer the call with an error result of its own; the log does not say whether it reloaded`;
}
