/*
 * Which headers cross the proxy. Hop-by-hop headers (RFC 9110 section 7.6.1) describe one
 * connection, not the message: they are dropped in both directions, with any header the
 * Connection header names. Every other header goes through in its original order and case.
 */

const HOP_BY_HOP: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Names listed in Connection headers (lower case). */
function connectionNamed(raw: readonly string[]): Set<string> {
  const named = new Set<string>();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if ((raw[i] as string).toLowerCase() !== 'connection') continue;
    for (const n of (raw[i + 1] as string).split(',')) if (n.trim()) named.add(n.trim().toLowerCase());
  }
  return named;
}

/**
 * `raw` (Node's rawHeaders: name, value, name, value…) without hop-by-hop headers, as
 * [name, value] pairs; `host`, when given, replaces the value of the Host header.
 */
export function endToEnd(raw: readonly string[], host?: string): [string, string][] {
  const named = connectionNamed(raw);
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] as string;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || lower.startsWith('proxy-') || named.has(lower)) continue;
    out.push([name, host !== undefined && lower === 'host' ? host : (raw[i + 1] as string)]);
  }
  return out;
}

/** The first value of a header in rawHeaders, case-insensitive. */
export function rawHeader(raw: readonly string[], name: string): string | undefined {
  for (let i = 0; i + 1 < raw.length; i += 2) if ((raw[i] as string).toLowerCase() === name) return raw[i + 1];
  return undefined;
}
