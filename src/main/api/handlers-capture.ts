import type { z } from 'zod';
import type { CaptureMethod, CONTRACT, ApiOutput } from '../../shared/api/contract';
import type { JoinedRequest, WireJoin } from '../../shared/model/wire-join';
import { callOf } from '../capture/attach';
import { joinedView } from '../capture/joined-view';
import { viewJson } from '../present/json';
import { branchOf, contractOutput } from './conform';
import { ApiFailure, type SessionRegistry } from './sessions';

/**
 * Handlers of a session joined with its captures (src/shared/api/capture-contract.ts). A capture
 * is joined to the default branch when the session opens (./session-captures.ts); another branch,
 * or a session with no capture, has no joined list.
 */

type CaptureImpl = { readonly [M in CaptureMethod]: (input: z.output<(typeof CONTRACT)[M]['input']>) => Promise<ApiOutput<M>> };

function row(j: JoinedRequest, wire: WireJoin) {
  const file = j.capture === null ? null : (wire.captures[j.capture]?.file ?? null);
  return {
    index: j.index,
    source: j.source,
    purpose: j.purpose,
    purposeWhy: j.purposeWhy,
    status: j.status,
    logIndex: j.logIndex,
    logSeq: j.logSeq,
    retryOf: j.retryOf,
    compactionId: j.compactionId,
    verdict: j.verdict,
    firstDiff: j.firstDiff,
    model: j.model,
    finish: j.finish,
    usage: j.usage,
    error: j.error,
    at: j.at,
    durationMs: j.durationMs,
    afterSeq: j.afterSeq,
    capture: file === null ? null : { path: file, line: j.line, exchange: j.exchange },
  };
}

export function captureImplementations(ctx: { readonly registry: SessionRegistry }): CaptureImpl {
  const { registry } = ctx;
  return {
    async listTimeline({ sessionId, branch }) {
      const s = registry.get(sessionId);
      const b = branchOf(s, branch);
      const wire = s.inspector.wire(b);
      if (!wire) return contractOutput('listTimeline', { branch: b, joined: false, requests: [], compactions: [], orphanAttempts: [] });
      return contractOutput('listTimeline', {
        branch: b,
        joined: true,
        requests: wire.requests.map((j) => row(j, wire)),
        compactions: wire.compactions.map((c) => ({ id: c.id, attempts: [...c.attempts] })),
        orphanAttempts: wire.orphanAttempts.map((r) => [...r]),
      });
    },

    async getWireRequest({ sessionId, index }) {
      const s = registry.get(sessionId);
      const b = s.inspector.defaultBranch;
      const wire = s.inspector.wire(b);
      if (!wire) throw new ApiFailure('NO_REQUEST', "No capture is joined to this session: its requests are listRequests'.");
      const j = wire.requests[index];
      if (!j) throw new ApiFailure('NO_REQUEST', `No request ${index} in the joined list: it has ${wire.requests.length}.`);
      const call = callOf(s.inspector, j);
      const view = await joinedView(s.inspector, j, b);
      const fates = j.logIndex === null ? [] : s.inspector.fates(j.logIndex, b);
      return contractOutput('getWireRequest', {
        request: row(j, wire),
        view: view ? viewJson(s.path, b, view, fates) : null,
        output: call?.output
          ? {
              text: call.output.text,
              reasoning: call.output.reasoning,
              toolCalls: call.output.toolCalls.map((t) => ({ id: t.id, name: t.name, input: t.input })),
            }
          : null,
        http: call ? { method: call.exchange.method, path: call.exchange.path, status: call.status, stream: call.stream } : null,
      });
    },
  };
}
