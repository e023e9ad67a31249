import { isObj } from './json';
import { KNOWN_TYPES } from './known';

/**
 * Confidence that the first lines are a Claude Code transcript: records `{type: user|assistant|
 * system|progress, uuid, parentUuid, sessionId…}` and the bookkeeping records around them
 * (`file-history-snapshot {messageId, snapshot}`, `queue-operation {operation}`, `summary
 * {leafUuid}`). Looks at keys only; never throws.
 */
export function sniffClaudeCode(first: readonly Record<string, unknown>[], path: string): number {
  let hits = 0;
  for (const v of first) {
    const t = v.type;
    if (typeof t !== 'string') continue;
    if (
      (t === 'user' || t === 'assistant' || t === 'system' || t === 'progress' || t === 'attachment') &&
      'parentUuid' in v &&
      typeof v.uuid === 'string'
    )
      hits++;
    else if (t === 'file-history-snapshot' && isObj(v.snapshot)) hits++;
    else if (t === 'queue-operation' && typeof v.operation === 'string') hits++;
    else if (t === 'summary' && typeof v.leafUuid === 'string') hits++;
    else if (KNOWN_TYPES.has(t) && typeof v.sessionId === 'string') hits++;
  }
  if (hits === 0) return 0;
  const share = hits / first.length;
  const named = /[\\/]\.claude[\\/]projects[\\/]/.test(path) ? 0.05 : 0;
  return Math.min(0.98, 0.55 + 0.4 * share + named);
}
