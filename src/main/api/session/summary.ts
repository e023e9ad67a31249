import { branchesJson, filesJson, inspectJson } from '../../present/json';
import type { OpenSession } from '../sessions';

/**
 * The summary of an open session (openSession, getSessionInfo). `counts.requests` stays the log's
 * own count with a capture joined, as every other method's request index is the log's; the joined
 * list is `listTimeline`'s.
 */
export function sessionSummary(s: OpenSession) {
  if (s.partial) return partialSummary(s, s.partial);
  const j = inspectJson(s.path, s.inspector);
  const wire = s.inspector.wire();
  return {
    sessionId: s.id,
    path: s.path,
    format: j.format,
    files: j.files,
    counts: { ...j.counts, requests: s.inspector.replay().requests.length },
    branches: j.branches,
    defaultBranch: j.branch,
    captures: (wire?.captures ?? []).map((c) => ({
      path: c.file,
      format: c.format,
      exchanges: c.exchanges,
      taken: c.taken,
      skipped: c.skipped,
    })),
  };
}

/**
 * A first view's summary: the counts of the lines read so far, marked `partial`, with no findings
 * (they are not worked out for a first view: a rule may find what later lines settle) and no
 * captures (joined with the whole session).
 */
function partialSummary(s: OpenSession, partial: NonNullable<OpenSession['partial']>) {
  const state = s.inspector.replay();
  const session = s.inspector.session;
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
      diagnostics: { error: 0, warning: 0, info: 0 },
    },
    branches: branchesJson(s.inspector),
    defaultBranch: state.branch,
    captures: [],
    partial: { read: partial.read, total: partial.total, ...partial.progress() },
  };
}
