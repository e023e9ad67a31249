import type { ServeDef, ServedTurn, TurnSpec } from './clients';

/*
 * OpenCode driven through its own HTTP server (`opencode serve`), for what `opencode run` cannot
 * do headless: a manual compaction, which the TUI's `/compact` sends as
 * `POST /session/:id/summarize`, and the pruning of old tool outputs, which OpenCode starts in the
 * background once a turn's loop has ended (a `run` process exits before it writes anything). Every
 * pinned version (1.0.162 to 1.18.33) serves the routes used here: `POST /session`,
 * `POST /session/:id/message` (answers when the turn's loop is over) and
 * `POST /session/:id/summarize` (answers when the summary is written), each taking a JSON body.
 *
 * A turn whose prompt is `/compact` is the manual compaction; any other prompt is a user message.
 */

const DEFAULT_MODEL = 'mock/mock-model';

/** The model a scenario picks with `-m provider/model` in its settings, as the API takes it. */
function servedModel(settings: readonly string[]): { providerID: string; modelID: string } {
  const i = settings.indexOf('-m');
  const spec = i >= 0 ? (settings[i + 1] ?? DEFAULT_MODEL) : DEFAULT_MODEL;
  const slash = spec.indexOf('/');
  return { providerID: spec.slice(0, slash), modelID: spec.slice(slash + 1) };
}

async function call(base: string, path: string, body: unknown, signal: AbortSignal): Promise<{ status: number; text: string }> {
  try {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal,
    });
    return { status: res.status, text: await res.text() };
  } catch (e) {
    return { status: 0, text: e instanceof Error ? e.message : String(e) };
  }
}

async function turn(base: string, t: TurnSpec, settings: readonly string[], signal: AbortSignal): Promise<ServedTurn> {
  const calls: string[] = [];
  let sessionId = t.resume;
  if (!sessionId) {
    calls.push('POST /session');
    const r = await call(base, '/session', {}, signal);
    const id = r.status === 200 ? (JSON.parse(r.text) as { id?: unknown }).id : undefined;
    if (typeof id !== 'string') return { calls, status: r.status, body: r.text, sessionId: null };
    sessionId = id;
  }
  const model = servedModel(settings);
  const path = `/session/${encodeURIComponent(sessionId)}/${t.prompt === '/compact' ? 'summarize' : 'message'}`;
  const body = t.prompt === '/compact' ? model : { model, parts: [{ type: 'text', text: t.prompt }] };
  calls.push(`POST ${path}`);
  const r = await call(base, path, body, signal);
  return { calls, status: r.status, body: r.text, sessionId };
}

export const openCodeServe: ServeDef = {
  argv: () => ['serve', '--hostname', '127.0.0.1', '--port', '0'],
  url(output) {
    // Every version prints `opencode server listening on http://127.0.0.1:PORT`.
    const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
    return m?.[1] ?? null;
  },
  // OpenCode starts pruning in the background once a turn's loop has ended (session/prompt.ts:
  // `SessionCompaction.prune`, not awaited); the next turn is sent after it has written.
  settleMs: 2_000,
  turn,
};
