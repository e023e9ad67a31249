import { isObj } from '../dsh/json';

/** Confidence that the first lines are a cosh history: `{schema_version, event_id, branch_id, delta:{type}}`. */
function isEvent(v: Record<string, unknown>): boolean {
  return (
    typeof v.schema_version === 'number' &&
    typeof v.event_id === 'number' &&
    typeof v.branch_id === 'string' &&
    isObj(v.delta) &&
    typeof v.delta.type === 'string'
  );
}

export function sniffCosh(first: readonly Record<string, unknown>[], path: string): number {
  if (first.length === 0) return 0;
  const share = first.filter(isEvent).length / first.length;
  if (share === 0) return 0;
  const named = /(^|[\\/])session-[^\\/]+\.jsonl$/.test(path) ? 0.05 : 0;
  return Math.min(0.98, (share >= 0.5 ? 0.6 + 0.35 * share : 0.4 * share) + named);
}
