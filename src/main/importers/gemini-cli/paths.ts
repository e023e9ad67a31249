/**
 * What a session's path says. Gemini CLI names a main session
 * `chats/session-<YYYY-MM-DDTHH-MM>-<first 8 characters of the id>.json(l)` and a subagent's
 * `chats/<parentSessionId>/<sessionId>.jsonl` (chatRecordingService.ts).
 */

function parts(path: string): string[] {
  return path.split(/[\\/]/);
}

/** The session id a file name gives when the file has no metadata line: the name without its extension. */
export function sessionIdFromPath(path: string): string {
  const name = parts(path).pop() ?? path;
  return name.replace(/\.jsonl?$/i, '') || name;
}

/** The parent session of a subagent file: the folder between `chats` and the file, or null. */
export function parentFromPath(path: string): string | null {
  const p = parts(path);
  const n = p.length;
  return n >= 3 && p[n - 3] === 'chats' && p[n - 2] !== '' ? (p[n - 2] as string) : null;
}
