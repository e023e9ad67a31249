import type { Finish, Usage } from '../../../src/shared/model/event';
import type { SummaryCall, SummaryError, SummaryRequest, Summarizer } from '../../../src/shared/strategies/types';

/**
 * A scripted Summarizer for strategy tests: each request is answered by the first rule whose
 * predicate holds (rules are reused), and every request is kept so a test can assert what was
 * asked (stage, output ceiling, prompt text). Deterministic; no timers unless `delayMs` is given.
 */
export interface FakeAnswer {
  readonly text?: string;
  readonly finish?: Finish;
  readonly usage?: Usage;
  readonly error?: SummaryError;
  readonly delayMs?: number;
}

export type FakeRule = (req: SummaryRequest, n: number) => FakeAnswer | null;

export class FakeSummarizer implements Summarizer {
  readonly requests: SummaryRequest[] = [];
  private inFlight = 0;
  /** Highest number of summarize() calls running at once. */
  maxInFlight = 0;

  constructor(
    private readonly rules: readonly FakeRule[],
    readonly window: number | null = 128_000,
    readonly defaultMaxOutput: number | null = null,
    private readonly model = 'fake:summarizer',
  ) {}

  async summarize(request: SummaryRequest, signal: AbortSignal): Promise<SummaryCall> {
    const n = this.requests.length;
    this.requests.push(request);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      const answer = this.rules.map((r) => r(request, n)).find((a) => a !== null) ?? { text: `summary of ${request.label}` };
      if (answer.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs));
      if (signal.aborted) return this.call(request, { error: { kind: 'cancelled', message: 'cancelled' } });
      return this.call(request, answer);
    } finally {
      this.inFlight--;
    }
  }

  private call(request: SummaryRequest, a: FakeAnswer): SummaryCall {
    const finish = a.error ? (a.finish ?? null) : (a.finish ?? { raw: 'end_turn', reason: 'stop' });
    const natural = finish?.reason === 'stop';
    const text = !a.error && natural && a.text ? a.text : null;
    const error: SummaryError | null =
      a.error ??
      (!natural
        ? { kind: 'incomplete', message: `finish reason: ${finish?.raw ?? 'missing'}` }
        : text === null
          ? { kind: 'empty', message: 'empty summary' }
          : null);
    return {
      request,
      model: this.model,
      text,
      finish,
      usage: a.usage ?? { input: 100, output: 10 },
      latencyMs: a.delayMs ?? 0,
      attempts: 1,
      error,
    };
  }
}

/** Answer requests of one stage with a fixed text. */
export const byStage =
  (stage: SummaryRequest['stage'], answer: FakeAnswer): FakeRule =>
  (req) =>
    req.stage === stage ? answer : null;
