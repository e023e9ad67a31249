import { inspectJson } from '../../present/json';
import type { OpenSession } from '../sessions';

/**
 * The summary of an open session (openSession, getSessionInfo). `counts.requests` stays the log's
 * own count with a capture joined, as every other method's request index is the log's; the joined
 * list is `listTimeline`'s.
 */
export function sessionSummary(s: OpenSession) {
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
