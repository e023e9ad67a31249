import { CONTRACT, type ApiMethod, type ApiOutput } from '../../shared/api/contract';
import { ApiFailure, type OpenSession } from './sessions';

/*
 * Shared by every handler module: the contract's output check (a core result that does not fit
 * the contract is a bug, reported as INTERNAL and never sent half-valid) and branch resolution.
 */

/** `value` parsed by method `m`'s output schema. `quiet` leaves the issues out of the message (key methods). */
export function contractOutput<M extends ApiMethod>(m: M, value: unknown, quiet = false): ApiOutput<M> {
  const r = CONTRACT[m].output.safeParse(value);
  if (!r.success) {
    const issues = quiet
      ? ''
      : `: ${r.error.issues
          .slice(0, 3)
          .map((i) => `${i.path.length > 0 ? i.path.join('.') : '(value)'}: ${i.message}`)
          .join('; ')}`;
    throw new ApiFailure('INTERNAL', `The core produced a ${m} result that does not match the API contract${issues}.`);
  }
  return r.data as ApiOutput<M>;
}

/** The session's default branch, or the one named if it exists (NO_BRANCH otherwise). */
export function branchOf(s: OpenSession, branch: string | undefined): string {
  if (branch === undefined) return s.inspector.defaultBranch;
  if (!s.inspector.hasBranch(branch)) {
    throw new ApiFailure('NO_BRANCH', `No branch "${branch}"; branches: ${s.inspector.branches.map((b) => b.name).join(', ')}.`);
  }
  return branch;
}
