import { isObj } from '../json';
import { MESSAGE_TYPES } from './records';

/**
 * Confidence that the first lines are a Gemini CLI session: a metadata record `{sessionId,
 * projectHash, …}` without a `type` (a whole legacy record adds `messages`), messages `{id,
 * timestamp, type: user|gemini|info|error|warning, content}`, and `{$set}` / `{$rewindTo}` updates.
 * Claude Code's lines also carry `sessionId` and `type: "user"`, but with `uuid` and `message`
 * instead of `id` and `content`: those are not claimed.
 */
function kindOf(v: Record<string, unknown>): 'strong' | 'weak' | null {
  if ('uuid' in v || 'message' in v || 'payload' in v) return null;
  if (typeof v.sessionId === 'string' && typeof v.projectHash === 'string' && !('type' in v)) return 'strong';
  if (typeof v.$rewindTo === 'string') return 'strong';
  if (isObj(v.$set)) return Array.isArray(v.$set.messages) || 'lastUpdated' in v.$set ? 'strong' : 'weak';
  if (
    typeof v.id === 'string' &&
    typeof v.type === 'string' &&
    MESSAGE_TYPES.has(v.type) &&
    'content' in v &&
    typeof v.timestamp === 'string'
  )
    return v.type === 'gemini' || v.type === 'info' ? 'strong' : 'weak';
  return null;
}

export function sniffGeminiCli(first: readonly Record<string, unknown>[], path: string): number {
  if (first.length === 0) return 0;
  const kinds = first.map(kindOf);
  const share = kinds.filter((k) => k !== null).length / first.length;
  if (share === 0) return 0;
  const strong = kinds.some((k) => k === 'strong');
  const named = /(^|[\\/])chats[\\/]/.test(path) || /(^|[\\/])session-[^\\/]+\.jsonl?$/.test(path) ? 0.05 : 0;
  if (!strong) return Math.min(0.45, 0.4 * share + named);
  return Math.min(0.97, (share >= 0.5 ? 0.6 + 0.35 * share : 0.4 * share) + named);
}
