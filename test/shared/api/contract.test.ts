import { describe, expect, it } from 'vitest';
import { API_METHODS, CONTRACT, ApiResultEnvelope } from '../../../src/shared/api/contract';

describe('API contract', () => {
  it('has this surface (a change here is a change of the API: review it)', () => {
    expect([...API_METHODS].sort()).toMatchInlineSnapshot(`
      [
        "closeSession",
        "getView",
        "initialSessions",
        "listCompactions",
        "listDiagnostics",
        "listEvents",
        "listRequests",
        "openSession",
      ]
    `);
    expect(Object.keys(CONTRACT).sort()).toEqual([...API_METHODS].sort());
  });

  it('takes these inputs', () => {
    const inputs = Object.fromEntries(
      Object.entries(CONTRACT).map(([m, spec]) => [m, Object.keys(spec.input.shape).sort().join(', ')]),
    );
    expect(inputs).toMatchInlineSnapshot(`
      {
        "closeSession": "sessionId",
        "getView": "branch, full, index, sessionId",
        "initialSessions": "",
        "listCompactions": "branch, sessionId",
        "listDiagnostics": "branch, sessionId",
        "listEvents": "count, from, sessionId",
        "listRequests": "branch, sessionId",
        "openSession": "format, path",
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
