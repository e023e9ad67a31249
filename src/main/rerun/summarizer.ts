import { AUDIT_SYSTEM } from '../../shared/strategies/layered/prompts';
import { modelLabel, type PinnedModel } from '../../shared/rerun/pinned';
import { ChainSummarizer } from '../providers/chain';
import { keyLookup } from '../providers/call';
import { EndpointApprovals } from '../providers/endpoints';
import type { KeyReader } from '../providers/keys';
import type { RetryPolicy } from '../providers/retry';
import { extractiveSummary, ScriptPlayer, startMockProvider, type Answerer, type MockProvider, type ScriptInput } from '../mock';
import type { SummarizerHandle } from './run';

/*
 * The summarizer of a re-run: cosh's chain over the provider adapters. A `mock` model without a
 * baseUrl gets a mock provider started here, in process, for the life of the handle: it answers
 * with a deterministic extractive summary labelled "[MOCK SUMMARY — not a model]" (and PASS to the
 * layered strategy's audits), so a user with no key sees the whole flow, and every record says mock.
 */

export interface SummarizerSetup {
  readonly models: readonly PinnedModel[];
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly keys?: KeyReader | null;
  /**
   * Where keys may be sent (endpoints.ts); an endpoint it refuses gets no key, and the call fails
   * saying why. Default: the providers' own endpoints only.
   */
  readonly endpoints?: EndpointApprovals;
  readonly policy?: Partial<RetryPolicy>;
  /** Steps tried before the extractive answer (faults to inject in evals). */
  readonly mockScript?: ScriptInput;
  /** Fixed latency of the in-process mock, in ms (benchmarks). */
  readonly mockLatencyMs?: number;
  /** Replaces the default mock answers (evals build theirs from the spec's mock config and faults). */
  readonly mockAnswer?: Answerer;
}

export interface OpenSummarizer extends SummarizerHandle {
  readonly mockProvider: MockProvider | null;
  dispose(): Promise<void>;
}

/** Default window of the in-process mock (a mock has no window of its own; the user may pin one). */
export const MOCK_WINDOW = 200_000;

const AUDIT_MARK = AUDIT_SYSTEM.slice(0, 60);

/**
 * The in-process mock's answers: scripted steps first (faults an eval injects, in order), then PASS
 * for the layered strategy's audits, then the extractive summary of the request.
 */
export function mockAnswerer(script: ScriptInput | undefined): Answerer {
  const steps = new ScriptPlayer({ steps: script?.steps ?? [] });
  return (digest) => {
    const choice = steps.choose(digest);
    if (choice.step !== null) return choice.fault ?? choice.reply;
    if (digest.system.includes(AUDIT_MARK)) return { content: [{ type: 'text', text: 'PASS' }] };
    return extractiveSummary(digest);
  };
}

export async function openSummarizer(setup: SummarizerSetup): Promise<OpenSummarizer> {
  let mockProvider: MockProvider | null = null;
  const models: PinnedModel[] = [];
  try {
    for (const m of setup.models) {
      if (m.provider !== 'mock' || m.baseUrl !== undefined) {
        models.push(m);
        continue;
      }
      mockProvider ??= await startMockProvider({
        script: { steps: [] },
        answer: setup.mockAnswer ?? mockAnswerer(setup.mockScript),
        ...(setup.mockLatencyMs !== undefined ? { latencyMs: setup.mockLatencyMs } : {}),
      });
      models.push({ ...m, baseUrl: mockProvider.url, window: m.window ?? MOCK_WINDOW });
    }
  } catch (err) {
    await mockProvider?.dispose();
    throw err;
  }
  const chain = new ChainSummarizer(models, {
    keys: keyLookup(setup.env ?? process.env, setup.keys ?? null, setup.endpoints ?? new EndpointApprovals()),
    ...(setup.policy ? { policy: setup.policy } : {}),
  });
  const provider = mockProvider;
  return {
    summarizer: chain,
    ledger: { sentFor: (c) => chain.sentFor(c).map((s) => ({ url: s.url, body: s.body })), costFor: (c) => chain.costFor(c) },
    // Recorded as pinned, except the mock's ephemeral port: runs compare across launches.
    models: models.map((m) => ({
      ...m,
      ...(m.provider === 'mock' && provider && m.baseUrl === provider.url ? { baseUrl: 'in-process' } : {}),
      label: modelLabel(m),
    })),
    mock: models.some((m) => m.provider === 'mock'),
    mockProvider: provider,
    dispose: async () => {
      await provider?.dispose();
    },
  };
}
