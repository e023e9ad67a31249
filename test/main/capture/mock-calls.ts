import { type CapturedRequest, bodyJson, readCaptured } from '../../../src/main/mock/record';
import type { Capture, Exchange, WireCall } from '../../../src/main/capture/exchange';

/*
 * Wire calls from a fidelity run's `captured.jsonl` (what the mock provider received and how it
 * answered), for testing the join on real clients' requests before a recorder capture exists for
 * every scenario. The response id is the one the mock gives (msg_mock_0003 / resp_mock_3).
 */

export function mockCalls(path: string): { capture: Capture; calls: WireCall[] } {
  const { requests } = readCaptured(path);
  const t0 = Date.parse(requests[0]?.at ?? '2026-01-01T00:00:00Z');
  const calls = requests.map((c: CapturedRequest, i): WireCall => {
    const exchange: Exchange = {
      index: i,
      file: path,
      line: i + 1,
      provider: null,
      method: c.method,
      path: c.path,
      host: null,
      startedAt: Date.parse(c.at) || t0 + i,
      ttfbMs: null,
      totalMs: null,
      request: { headers: c.headers, body: null, bytes: c.bodyBytes },
      response: { status: c.answer.status, headers: [], events: null, body: null, complete: true },
      error: null,
    };
    const body = bodyJson(c);
    const ok = c.answer.status < 400;
    const protocol = c.protocol === 'anthropic-messages' || c.protocol === 'openai-responses' ? c.protocol : null;
    const id = !ok ? null : protocol === 'anthropic-messages' ? `msg_mock_${String(c.seq).padStart(4, '0')}` : `resp_mock_${c.seq}`;
    return {
      exchange,
      protocol,
      kind: protocol && !c.path.includes('count_tokens') ? 'model' : 'other',
      body: typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : null,
      model: null,
      stream: true,
      status: c.answer.status,
      responseId: id,
      output: null,
      finish: null,
      usage: null,
      error: ok ? null : { code: String(c.answer.status), message: c.answer.kind },
      durationMs: null,
    };
  });
  return { capture: { file: path, format: 'mock', exchanges: calls.map((c) => c.exchange), cwd: null, skipped: [] }, calls };
}
