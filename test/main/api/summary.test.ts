import { afterAll, describe, expect, it } from 'vitest';
import { createHandlers } from '../../../src/main/api/handlers';
import { SessionRegistry } from '../../../src/main/api/sessions';
import { closeSessionTokens } from '../../../src/main/api/session/tokens';
import { inspectJson } from '../../../src/main/present/json';
import { value } from './results';

/*
 * A session's summary (src/main/api/session/summary.ts) is counted without listing its requests:
 * it says what `inspect --json` says of the session (format, files, branches, counts, findings by
 * severity), the request count being the log's own when a capture is joined (the joined list is
 * listTimeline's), and the captures joined.
 */

const SESSIONS = [
  'fixtures/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl',
  'fixtures/codex/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl',
  'fixtures/palimpsest/compaction-lifecycle.jsonl',
  'fixtures/palimpsest/mapreduce.jsonl',
];
const JOINED = {
  path: 'fixtures/fidelity/logs/claude-code-2.1.332/compact-http-500/projects/-tmp-palimpsest-fidelity-run-claude-code-compact-http-500-work/d7672e9b-78eb-4ae0-bede-e6cfd3bf86dc.jsonl',
  captures: ['fixtures/captures/fidelity/claude-code-2.1.332.compact-http-500.capture.jsonl'],
};

afterAll(async () => {
  await closeSessionTokens();
});

describe("a session's summary", () => {
  it.each([...SESSIONS.map((path) => ({ path, captures: [] as string[] })), JOINED])(
    'says what inspect --json says of $path',
    async ({ path, captures }) => {
      const registry = new SessionRegistry({ allow: 'any', captureDiscovery: null });
      const h = createHandlers({ registry, initialPaths: [] });
      try {
        const s = value(await h.openSession({ path, captures }));
        const inspector = registry.get(s.sessionId).inspector;
        const j = inspectJson(path, inspector);
        expect(s.format).toBe(j.format);
        expect(s.files).toEqual(j.files);
        expect(s.branches).toEqual(j.branches);
        expect(s.defaultBranch).toBe(j.branch);
        expect(s.counts).toEqual({ ...j.counts, requests: inspector.replay().requests.length });
        expect(s.captures?.map((c) => c.exchanges)).toEqual(j.captures.map((c) => c.exchanges));
        expect(s.captures?.length).toBe(captures.length);
        expect(value(await h.getSessionInfo({ sessionId: s.sessionId }))).toEqual(s);
      } finally {
        registry.dispose();
      }
    },
    60_000,
  );
});
