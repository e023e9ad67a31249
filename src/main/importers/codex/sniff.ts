import { isObj, str } from './json';
import { RECORD_TYPES, RESPONSE_ITEM_TYPES } from './known';

/**
 * Confidence that the first lines are a Codex rollout: `{timestamp, type, payload}` lines whose
 * type is a `RolloutItem` tag, ideally starting with `session_meta`; or the first rollouts' bare
 * header `{id, timestamp, instructions?}` followed by bare response items.
 */

function isRolloutLine(v: Record<string, unknown>): boolean {
  const type = str(v.type);
  return type !== undefined && RECORD_TYPES.has(type) && v.payload !== undefined && typeof v.timestamp === 'string';
}

export function sniffCodex(first: readonly Record<string, unknown>[], path: string): number {
  const head = first[0];
  if (!head) return 0;
  const named = /(^|[\\/])rollout-[^\\/]*\.jsonl$/.test(path) ? 0.05 : 0;
  const lines = first.filter(isRolloutLine).length;
  const share = lines / first.length;
  if (head.type === 'session_meta' && isObj(head.payload) && typeof head.payload.id === 'string') {
    let score = 0.85;
    if (typeof head.payload.cli_version === 'string' || typeof head.payload.originator === 'string') score += 0.05;
    return Math.min(1, score + 0.05 * share + named);
  }
  if (lines > 0) return Math.min(0.9, (share >= 0.5 ? 0.55 + 0.3 * share : 0.4 * share) + named);
  // The first rollouts: a bare header, then bare ResponseItems.
  if (head.type === undefined && typeof head.id === 'string' && typeof head.timestamp === 'string') {
    const items = first.slice(1).filter((v) => typeof v.type === 'string' && RESPONSE_ITEM_TYPES.has(v.type)).length;
    if (items > 0 || named > 0) return Math.min(0.8, 0.5 + (first.length > 1 ? 0.25 * (items / (first.length - 1)) : 0) + named);
  }
  return 0;
}
