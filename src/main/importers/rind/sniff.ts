import { MESSAGE_ROLES } from './records';

/**
 * Confidence that the first lines are a Rind `messages.jsonl`: `{id, ts, role, content, …}`
 * records with no `type` or `kind` field (the other formats tag every line). Tool and compaction
 * records are only read as part of a session directory.
 */
function isMessage(v: Record<string, unknown>): boolean {
  if ('type' in v || 'kind' in v || 'delta' in v) return false;
  return (
    typeof v.role === 'string' &&
    MESSAGE_ROLES.has(v.role) &&
    typeof v.ts === 'string' &&
    typeof v.id === 'string' &&
    (v.content === undefined || typeof v.content === 'string')
  );
}

export function sniffRind(first: readonly Record<string, unknown>[], path: string): number {
  if (first.length === 0) return 0;
  const share = first.filter(isMessage).length / first.length;
  if (share === 0) return 0;
  const named = /(^|[\\/])messages\.jsonl$/.test(path) ? 0.1 : 0;
  return Math.min(0.95, (share >= 0.5 ? 0.55 + 0.3 * share : 0.4 * share) + named);
}
