import { branchesJson, countSeverities, filesJson } from '../../present/json';
import type { OpenSession } from '../sessions';

/**
 * The summary of an open session (openSession, getSessionInfo, awaitSessionChange). `counts.requests`
 * stays the log's own count with a capture joined, as every other method's request index is the
 * log's; the joined list is `listTimeline`'s. Only counts: asked every 500 ms of a first view and at
 * each change of a followed session, it lists no request (a 100 MB session has 14,000).
 *
 * A first view's summary (`partial`) counts the lines read so far, with no findings (they are not
 * worked out for a first view: a rule may find what later lines settle) and no captures (joined
 * with the whole session).
 */
export function sessionSummary(s: OpenSession) {
  const state = s.inspector.replay();
  const session = s.inspector.session;
  const wire = s.partial ? null : s.inspector.wire();
  return {
    sessionId: s.id,
    path: s.path,
    format: session.format,
    files: filesJson(session.files),
    counts: {
      events: session.events.length,
      items: state.items.length,
      requests: state.requests.length,
      compactions: state.compactions.length,
      diagnostics: s.partial ? { error: 0, warning: 0, info: 0 } : countSeverities(s.inspector.diagnostics(state.branch)),
    },
    branches: branchesJson(s.inspector),
    defaultBranch: state.branch,
    captures: (wire?.captures ?? []).map((c) => ({
      path: c.file,
      format: c.format,
      exchanges: c.exchanges,
      taken: c.taken,
      skipped: c.skipped,
    })),
    ...(s.partial ? { partial: { read: s.partial.read, total: s.partial.total, ...s.partial.progress() } } : {}),
  };
}
