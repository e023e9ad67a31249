import type { WireCall } from '../exchange';

/*
 * The harness session a wire request belongs to, when the request says: a capture made with
 * `record --listen` may hold several sessions at once, and only this session's requests join it.
 *  - Claude Code: the `X-Claude-Code-Session-Id` header; else `metadata.user_id`, a JSON object
 *    with `session_id` (newer clients) or a string ending in `_session_<uuid>` (older ones).
 *  - Codex: the `session-id` / `session_id` header; else the body's `prompt_cache_key`, which Codex
 *    sets to the conversation id.
 */

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

type HeaderList = readonly (readonly [string, string])[];

function header(headers: HeaderList, name: string): string | null {
  const n = name.toLowerCase();
  return headers.find(([k]) => k.toLowerCase() === n)?.[1] ?? null;
}

function fromUserId(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  if (v.startsWith('{')) {
    try {
      const o = JSON.parse(v) as { session_id?: unknown };
      return typeof o.session_id === 'string' && o.session_id !== '' ? o.session_id : null;
    } catch {
      return null;
    }
  }
  const m = /_session_([0-9a-f-]{36})$/i.exec(v);
  return m?.[1] ?? null;
}

export function wireSessionId(call: WireCall): string | null {
  return requestSessionId(call.exchange.request.headers, call.body);
}

/** The same from a request's headers and parsed body alone (capture discovery reads no more). */
export function requestSessionId(headers: HeaderList, b: Record<string, unknown> | null): string | null {
  const h = header(headers, 'x-claude-code-session-id') ?? header(headers, 'session-id') ?? header(headers, 'session_id');
  if (h && UUID.test(h)) return h;
  if (!b) return null;
  const meta = b.metadata;
  if (typeof meta === 'object' && meta !== null) {
    const s = fromUserId((meta as { user_id?: unknown }).user_id);
    if (s) return s;
  }
  return typeof b.prompt_cache_key === 'string' && UUID.test(b.prompt_cache_key) ? b.prompt_cache_key : null;
}
