import type { SourceItem, StrategyProgress, SummaryCall, SummaryRequest, Summarizer, TokenCounter } from '../types';
import { mapOutputReserve } from './options';

/**
 * What every stage of one `layered` run shares: the source, the summarizer and the window its
 * requests are sized to, and the records (calls, notes) the result reports.
 */
export class RunContext {
  readonly calls: SummaryCall[] = [];
  readonly notes: string[] = [];
  /**
   * The window summary requests are checked against. cosh: "Discovered/reported windows bound
   * summary requests; when discovery is unavailable the existing context-budget estimate is used
   * until the provider reports a limit." It only ever shrinks, on a provider's report.
   */
  window: number;

  constructor(
    readonly items: readonly SourceItem[],
    readonly itemTokens: readonly number[],
    readonly count: TokenCounter,
    readonly summarizer: Summarizer,
    readonly signal: AbortSignal,
    agentWindow: number,
    private readonly onProgress: ((p: StrategyProgress) => void) | undefined,
    /** The covered prefix: the only items a REREAD may ask for. */
    readonly prefix: { readonly from: number; readonly to: number },
  ) {
    this.window = summarizer.window ?? agentWindow;
  }

  /** maxOutput of maps, intermediate reductions and audits: 10 % of the window in use, 64–2,000. */
  get mapOutput(): number {
    return mapOutputReserve(this.window);
  }

  /**
   * What a request that leaves maxOutput to the connector reserves: the ceiling the connector
   * actually sends. cosh: "Unknown provider output defaults remain unknown" — nothing is invented.
   */
  get connectorOutput(): number {
    return this.summarizer.defaultMaxOutput ?? 0;
  }

  /** Estimated tokens of a request's input: instructions + messages. */
  inputTokens(req: SummaryRequest): number {
    let n = req.system ? this.count(req.system) : 0;
    for (const m of req.messages) n += this.count(m.text);
    return n;
  }

  /** The complete request — input plus the output it reserves — checked against the window. */
  fits(req: SummaryRequest): boolean {
    return this.inputTokens(req) + (req.maxOutput ?? this.connectorOutput) <= this.window;
  }

  /** Lower the window to a provider-reported one (never raise it: provider reports are authoritative when smaller). */
  reportWindow(window: number | undefined): void {
    if (window !== undefined && window > 0 && window < this.window) {
      this.notes.push(`the summarizer reported a ${window}-token window (was ${this.window}); later requests are sized to it`);
      this.window = window;
    }
  }

  progress(p: StrategyProgress): void {
    this.onProgress?.(p);
  }

  get cancelled(): boolean {
    return this.signal.aborted;
  }

  /** Sends one request and classifies the answer. Never throws. */
  async send(req: SummaryRequest): Promise<Sent> {
    if (this.signal.aborted) return { ok: false, kind: 'cancelled', reason: 'cancelled' };
    let call: SummaryCall;
    try {
      call = await this.summarizer.summarize(req, this.signal);
    } catch (e) {
      // A summarizer should return errors, not throw; if one throws, it is a provider failure of this request.
      const reason = `${req.label}: summarizer threw: ${e instanceof Error ? e.message : String(e)}`;
      this.notes.push(reason);
      return { ok: false, kind: 'failed', reason };
    }
    this.calls.push(call);
    return classify(call, this.signal);
  }
}

export type Sent =
  | { readonly ok: true; readonly text: string; readonly call: SummaryCall }
  | { readonly ok: false; readonly kind: 'overflow' | 'cancelled' | 'failed'; readonly reason: string; readonly window?: number };

/**
 * cosh: "Generic errors and cancellation are not classified as stuck context windows." Only an
 * explicit overflow error is an overflow; a 'cancelled' answer is a cancellation only when we asked.
 */
export function classify(call: SummaryCall, signal: AbortSignal): Sent {
  const label = call.request.label;
  // Completion integrity (cosh): only a natural finish with text is evidence. The Summarizer
  // contract already withholds text otherwise; a text with another finish is still refused here.
  if (call.error === null && call.text !== null && call.text.trim() !== '') {
    if (call.finish?.reason === 'stop') return { ok: true, text: call.text, call };
    return { ok: false, kind: 'failed', reason: `${label}: incomplete: finish reason ${call.finish?.raw ?? 'missing'}` };
  }
  const err = call.error ?? { kind: 'empty' as const, message: 'no text' };
  if (err.kind === 'overflow') {
    return {
      ok: false,
      kind: 'overflow',
      reason: `${label}: context overflow: ${err.message}`,
      ...(err.window !== undefined ? { window: err.window } : {}),
    };
  }
  if (err.kind === 'cancelled' && signal.aborted) return { ok: false, kind: 'cancelled', reason: 'cancelled' };
  return { ok: false, kind: 'failed', reason: `${label}: ${err.kind}${err.status !== undefined ? ` ${err.status}` : ''}: ${err.message}` };
}

/** A step that either produces a value or fails with a reason (expected failures are values, not throws). */
export type Step<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string; readonly cancelled?: boolean };
