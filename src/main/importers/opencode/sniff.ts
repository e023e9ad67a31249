/**
 * Confidence that the first lines are an OpenCode session's JSON-lines copy (materialise.ts):
 * every line is a record tagged `opencode` (session, message, part, bad). No harness writes such
 * lines; the copy is the only source of them.
 */
const TAGS = new Set(['session', 'message', 'part', 'bad']);

export function sniffOpenCode(first: readonly Record<string, unknown>[]): number {
  if (first.length === 0) return 0;
  const tagged = first.filter((v) => typeof v.opencode === 'string' && TAGS.has(v.opencode)).length;
  if (tagged < first.length) return 0;
  return first[0]?.opencode === 'session' ? 0.99 : 0.9;
}
