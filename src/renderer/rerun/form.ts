import type { ApiInput, CompactionRow, ModelSpec, RequestRow, StrategyRow } from '../../shared/api/contract';
import { isMock, modelSpec, positiveInt, type ChainEntry } from './chain';
import { strategyOptions } from './options';
import type { Result } from '../../shared/result';

export { entryLabel, isMock, modelSpec, type ChainEntry } from './chain';

/**
 * The re-run panel's form as the user edits it (strings, as typed) and its translation into a
 * `startRerun` input. Pure: the store keeps the form, this module decides what it means.
 */

export interface RerunForm {
  readonly targetKind: 'compaction' | 'request';
  readonly compactionId: string;
  readonly request: string;
  readonly strategy: string;
  readonly chain: readonly ChainEntry[];
  readonly window: string;
  readonly maxOutput: string;
  readonly repeat: string;
  /** The in-process mock's latency per request, ms (only sent when the chain has a mock). */
  readonly mockLatencyMs: string;
  /** Typed option fields, as typed, by strategy then option (./options.ts): switching strategy keeps each one's. */
  readonly options: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** "key=value" lines sent as they are, by strategy: the strategy itself accepts or rejects them. */
  readonly extraOptions: Readonly<Record<string, string>>;
}

export const PROVIDERS: readonly { readonly id: string; readonly label: string }[] = [
  { id: 'mock', label: 'mock — scripted, not a model' },
  { id: 'anthropic', label: 'anthropic (Messages)' },
  { id: 'openai', label: 'openai (Chat Completions; any compatible endpoint by base URL)' },
  { id: 'openai-responses', label: 'openai-responses (Responses API)' },
  { id: 'gemini', label: 'gemini' },
];

/** The mock entry a user with no key starts from. */
export const MOCK_MODEL = { provider: 'mock', model: 'summarizer', baseUrl: '', window: '' } as const;

export const MAX_APP_REPEAT = 100;

export type StartInput = ApiInput<'startRerun'>;

const INT = /^\d+$/;

/** The startRerun input of a form, or the first thing wrong with it, in a sentence. */
export function toStartInput(sessionId: string, form: RerunForm, strategies: readonly StrategyRow[]): Result<StartInput> {
  const strategy = strategies.find((s) => s.id === form.strategy);
  if (!strategy) return { ok: false, error: 'Choose a strategy.' };
  let target: StartInput['target'];
  if (form.targetKind === 'compaction') {
    if (form.compactionId === '') return { ok: false, error: 'Choose a compaction (this session has none: re-run a request instead).' };
    target = { compaction: form.compactionId };
  } else {
    const t = form.request.trim();
    if (!INT.test(t)) return { ok: false, error: 'The request must be its index (0, 1, 2…).' };
    target = { request: Number(t) };
  }
  const window = positiveInt(form.window, 'The window', 100_000_000);
  if (!window.ok) return window;
  const maxOutput = positiveInt(form.maxOutput, 'The output reserve', 10_000_000);
  if (!maxOutput.ok) return maxOutput;
  const repeat = positiveInt(form.repeat, 'Repeat', MAX_APP_REPEAT);
  if (!repeat.ok) return repeat;
  const models: ModelSpec[] = [];
  if (strategy.needsModel) {
    for (const e of form.chain) {
      const m = modelSpec(e);
      if (!m.ok) return m;
      models.push(m.value);
    }
  }
  const options = strategyOptions(strategy.id, form.options[strategy.id] ?? {}, form.extraOptions[strategy.id] ?? '');
  if (!options.ok) return { ok: false, error: `Options of ${strategy.id}: ${options.error}` };
  const latency = form.mockLatencyMs.trim();
  const withMock = strategy.needsModel && form.chain.some(isMock) && latency !== '' && latency !== '0';
  if (withMock && (!INT.test(latency) || Number(latency) > 60_000)) return { ok: false, error: 'The mock latency must be 0–60,000 ms.' };
  return {
    ok: true,
    value: {
      sessionId,
      target,
      strategy: strategy.id,
      models,
      ...(Object.keys(options.value).length > 0 ? { options: options.value } : {}),
      ...(window.value !== undefined ? { window: window.value } : {}),
      ...(maxOutput.value !== undefined ? { maxOutput: maxOutput.value } : {}),
      ...(repeat.value !== undefined ? { repeat: repeat.value } : {}),
      ...(withMock ? { mock: { latencyMs: Number(latency) } } : {}),
    },
  };
}

/** The target of a form, for matching runs; null when it is incomplete. */
export function formTarget(form: RerunForm): StartInput['target'] | null {
  if (form.targetKind === 'compaction') return form.compactionId === '' ? null : { compaction: form.compactionId };
  const t = form.request.trim();
  return INT.test(t) ? { request: Number(t) } : null;
}

export const sameTarget = (a: StartInput['target'], b: StartInput['target'] | null): boolean =>
  b !== null && ('compaction' in a ? 'compaction' in b && a.compaction === b.compaction : 'request' in b && a.request === b.request);

/**
 * A window under which the baselines have something to cut: theirs is a recent tail of 20 % of the
 * window, so a source that fits in it is left alone ("nothing to truncate"). null: the session's
 * own window already leaves them work, or nothing is known.
 */
export function demoWindow(
  c: CompactionRow | undefined,
  requests: readonly RequestRow[],
): { window: number; sessionWindow: number | null; tokens: number } | null {
  const tokens = c?.preTokens ?? null;
  if (tokens === null) return null;
  const before = requests.filter((r) => c?.startSeq == null || r.seq < c.startSeq);
  const sessionWindow = ([...before].reverse().find((r) => r.window !== null) ?? requests.find((r) => r.window !== null))?.window ?? null;
  if (sessionWindow !== null && tokens > sessionWindow * 0.2) return null;
  return { window: Math.max(1000, Math.ceil((tokens * 1.6) / 1000) * 1000), sessionWindow, tokens };
}
