import { describe, expect, it } from 'vitest';
import { API_METHODS, CONTRACT, ApiResultEnvelope } from '../../../src/shared/api/contract';

describe('API contract', () => {
  it('has this surface (a change here is a change of the API: review it)', () => {
    expect([...API_METHODS].sort()).toMatchInlineSnapshot(`
      [
        "awaitSessionChange",
        "cancelEval",
        "cancelRerun",
        "closeSession",
        "compareRuns",
        "diffViews",
        "discoverSessions",
        "evalRunDetail",
        "exportSession",
        "getAlignment",
        "getCompaction",
        "getEventText",
        "getItemText",
        "getSessionInfo",
        "getTokenMeter",
        "getTokenSeries",
        "getView",
        "getViewHead",
        "getViewWindow",
        "getWireRequest",
        "healthProgress",
        "healthReport",
        "initialSessions",
        "listCompactions",
        "listDiagnostics",
        "listEvalFiles",
        "listEvalJobs",
        "listEvents",
        "listFates",
        "listRequests",
        "listRerunJobs",
        "listRuns",
        "listStrategies",
        "listTimeline",
        "openEvalResults",
        "openSession",
        "openingSessions",
        "pickPaths",
        "prepareSession",
        "previewExport",
        "providerKeys",
        "removeProviderKey",
        "rerunSettings",
        "searchLibrary",
        "searchSession",
        "setProviderKey",
        "setSummarizationChain",
        "startEval",
        "startRerun",
        "watchEval",
        "watchRerun",
      ]
    `);
    expect(Object.keys(CONTRACT).sort()).toEqual([...API_METHODS].sort());
  });

  it('takes these inputs', () => {
    const inputs = Object.fromEntries(Object.entries(CONTRACT).map(([m, spec]) => [m, Object.keys(spec.input.shape).sort().join(', ')]));
    expect(inputs).toMatchInlineSnapshot(`
      {
        "awaitSessionChange": "sessionId, since, waitMs",
        "cancelEval": "jobId",
        "cancelRerun": "jobId",
        "closeSession": "sessionId",
        "compareRuns": "branch, runIds, sessionId, target",
        "diffViews": "a, b, branch, limit, sessionId",
        "discoverSessions": "refresh",
        "evalRunDetail": "file, key, runId, spec",
        "exportSession": "branch, compactionId, kind, patterns, redact, sessionId",
        "getAlignment": "branch, count, from, index, sessionId",
        "getCompaction": "branch, compactionId, sessionId",
        "getEventText": "seq, sessionId",
        "getItemText": "branch, index, itemId, sessionId",
        "getSessionInfo": "sessionId",
        "getTokenMeter": "branch, index, policy, sessionId",
        "getTokenSeries": "branch, policy, sessionId",
        "getView": "branch, full, index, sessionId",
        "getViewHead": "branch, index, sessionId",
        "getViewWindow": "branch, count, from, index, sessionId",
        "getWireRequest": "index, sessionId",
        "healthProgress": "",
        "healthReport": "by, refresh, settled, since",
        "initialSessions": "",
        "listCompactions": "branch, sessionId",
        "listDiagnostics": "branch, sessionId",
        "listEvalFiles": "",
        "listEvalJobs": "",
        "listEvents": "count, from, sessionId",
        "listFates": "branch, count, fate, from, index, sessionId",
        "listRequests": "branch, sessionId",
        "listRerunJobs": "sessionId",
        "listRuns": "sessionId",
        "listStrategies": "",
        "listTimeline": "branch, sessionId",
        "openEvalResults": "baseline, file, name, spec",
        "openSession": "captures, format, path, session",
        "openingSessions": "",
        "pickPaths": "kind",
        "prepareSession": "path",
        "previewExport": "branch, compactionId, kind, patterns, redact, sessionId",
        "providerKeys": "models",
        "removeProviderKey": "provider",
        "rerunSettings": "",
        "searchLibrary": "harness, has, max, model, project, query, since",
        "searchSession": "branch, max, query, sessionId",
        "setProviderKey": "key, provider",
        "setSummarizationChain": "models",
        "startEval": "results, resume, shard, spec",
        "startRerun": "branch, maxOutput, mock, models, options, repeat, sessionId, strategy, target, window",
        "watchEval": "after, jobId, waitMs",
        "watchRerun": "after, jobId, waitMs",
      }
    `);
  });

  it('validates inputs strictly enough to reject junk', () => {
    expect(CONTRACT.getView.input.safeParse({ sessionId: 's', index: 1.5 }).success).toBe(false);
    expect(CONTRACT.listEvents.input.safeParse({ sessionId: 's', from: 0, count: 0 }).success).toBe(false);
    expect(CONTRACT.openSession.input.safeParse({ path: '' }).success).toBe(false);
    expect(CONTRACT.openSession.input.safeParse({ path: 'a.jsonl', format: 'word' }).success).toBe(false);
    expect(CONTRACT.getView.input.parse({ sessionId: 's', index: 2, full: true })).toEqual({ sessionId: 's', index: 2, full: true });
  });

  it('carries errors as values', () => {
    expect(ApiResultEnvelope.safeParse({ ok: false, error: { code: 'NO_SESSION', message: 'gone' } }).success).toBe(true);
    expect(ApiResultEnvelope.safeParse({ ok: false, error: { code: 'WHATEVER', message: 'x' } }).success).toBe(false);
    expect(ApiResultEnvelope.safeParse({ ok: true, value: 1 }).success).toBe(true);
  });
});
