/*
 * A Gemini CLI `--resume` stub: resuming first opens a file of its own,
 * `session-<time>-<id8>.jsonl` under the resumed session's id, then appends the turn to the
 * session's first file. 0.61 writes the metadata line and the opening context into it, 0.41 the
 * metadata line alone (the fidelity runs tools-resume of 0.61.0 and of 0.41.2). Such a file is not
 * a session of its own. Shared by discovery, which lists it with the session it belongs to, and the
 * importer, which names it when it is opened.
 */

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  const parts = Array.isArray(content) ? content : [content];
  return parts.map((p) => (isObj(p) && typeof p.text === 'string' ? p.text : '')).join('');
}

/** A message the CLI writes itself when a chat opens (not a prompt). */
function isContext(m: unknown): boolean {
  if (!isObj(m) || m.type !== 'user') return false;
  const t = textOf(m.content).trimStart();
  return t.startsWith('<session_context>') || t.startsWith('<hook_context>');
}

/**
 * The evidence a file's records give that it is a resume stub: one metadata line with a session id,
 * and nothing else but `$set` updates whose messages are all opening context (no prompt, no model
 * turn, no message record), or none at all. The session id when so, else null. A stub is told
 * apart from a new chat that has not had its first prompt yet only by another file under the same
 * id beside it.
 */
export function geminiStubSessionId(records: readonly Record<string, unknown>[]): string | null {
  let id: string | null = null;
  for (const v of records) {
    if (typeof v.sessionId === 'string' && !('type' in v)) {
      if (id !== null || (Array.isArray(v.messages) && v.messages.length > 0)) return null;
      id = v.sessionId;
      continue;
    }
    if (!isObj(v.$set)) return null;
    const list = v.$set.messages;
    if (list === undefined) continue;
    if (!Array.isArray(list) || !list.every(isContext)) return null;
  }
  return id;
}
