import type { ApiErrorCode } from '../../shared/api/contract';

/*
 * Thrown by the API's handlers and by what they call (the library), so it lives below both: the
 * library must not import the API it serves.
 */

/** An error a handler returns as a value: `{ ok: false, error: { code, message } }`. */
export class ApiFailure extends Error {
  constructor(
    readonly code: ApiErrorCode,
    message: string,
  ) {
    super(message);
  }
}
