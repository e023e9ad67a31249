/**
 * A 53-bit FNV-1a style fingerprint of a string (two 32-bit lanes), for telling apart envelope
 * contents (system prompts, tool schemas) without node:crypto. Not for security; a collision only
 * makes two different envelopes look alike to the prompt-cache analysis.
 */
export function fingerprint(s: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return `${(a >>> 0).toString(16).padStart(8, '0')}${((b >>> 0) & 0x1fffff).toString(16).padStart(6, '0')}`;
}
