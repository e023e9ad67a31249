import type { ApiResult } from '../../../src/shared/api/contract';

/** The value of an answer that must have succeeded (its error, in the failure message, when not). */
export function value<T>(r: ApiResult<T>): T {
  if (!r.ok) throw new Error(`expected ok, got ${r.error.code}: ${r.error.message}`);
  return r.value;
}

/** The error of an answer that must have failed. */
export function errorOf(r: ApiResult<unknown>) {
  if (r.ok) throw new Error('expected an error value');
  return r.error;
}
