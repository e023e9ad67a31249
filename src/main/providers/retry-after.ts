/*
 * The delay a provider asked for. `retry-after-ms` (OpenAI, Anthropic) is more precise and wins;
 * `retry-after` is either delta-seconds or an HTTP date (RFC 9110 §10.2.3). A date in the past
 * means "now" (0). Anything unparsable is ignored rather than guessed.
 */

export function parseRetryAfter(retryAfter: string | null, retryAfterMs: string | null, now: number): number | null {
  if (retryAfterMs !== null && retryAfterMs.trim() !== '') {
    const ms = Number(retryAfterMs.trim());
    if (Number.isFinite(ms) && ms >= 0) return Math.ceil(ms);
  }
  if (retryAfter === null) return null;
  const v = retryAfter.trim();
  if (v === '') return null;
  if (/^\d+(\.\d+)?$/.test(v)) return Math.ceil(Number(v) * 1000);
  const at = Date.parse(v);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now);
}
