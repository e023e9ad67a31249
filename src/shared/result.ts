/*
 * The one Result type at the boundaries: a parser of user input, a file or a request returns a
 * failure as a value, never a throw, and its error says what to fix. `E` is a string (a message
 * for a person) unless the boundary has a richer error, as the API does with ApiError.
 */

export type Result<T, E = string> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: E };

export const ok = <T, E = string>(value: T): Result<T, E> => ({ ok: true, value });
export const fail = <T, E = string>(error: E): Result<T, E> => ({ ok: false, error });
