import { z } from 'zod';
import type { Route } from '../model/event';
import type { Result } from '../result';

/*
 * A pinned model: everything a re-run needs to send the same request again (provider protocol,
 * model id, endpoint, sampling and output settings, the window the request is sized for) and
 * nothing secret. The key is never part of it: `keyEnv` only names the environment variable that
 * holds one (src/main/providers/keys.ts resolves it). Pinned models are written into run records
 * as they are, so they must stay free of credentials.
 */

/**
 * Wire protocols a pinned model is sent over:
 * - `openai`: Chat Completions; also any OpenAI-compatible endpoint by `baseUrl` (Ollama, vLLM,
 *   llama.cpp, LM Studio, OpenRouter);
 * - `openai-responses`: the OpenAI Responses API;
 * - `anthropic`: the Anthropic Messages API;
 * - `gemini`: the Gemini API (generateContent streaming);
 * - `mock`: Palimpsest's local mock provider (src/main/mock) at `baseUrl`, or, without one, an
 *   in-process mock the re-run starts; answers are scripted or extractive, not a model's, and run
 *   records say so.
 */
export const ProviderId = z.enum(['openai', 'openai-responses', 'anthropic', 'gemini', 'mock']);
export type ProviderId = z.infer<typeof ProviderId>;

export const ReasoningEffort = z.enum(['low', 'medium', 'high']);
export type ReasoningEffort = z.infer<typeof ReasoningEffort>;

export const ModelParams = z
  .object({
    temperature: z.number().min(0).max(2).optional(),
    /**
     * The output ceiling this connector sends when a request leaves it to the connector. null or
     * absent: none is sent (provider default), except on Anthropic, which requires one (the adapter's
     * documented default is sent and recorded).
     */
    maxOutput: z.number().int().positive().nullable().optional(),
    /** Reasoning effort; null or absent: provider default (cosh: explicit summary models do not inherit the agent's effort). */
    reasoning: ReasoningEffort.nullable().optional(),
  })
  .strict();
export type ModelParams = z.infer<typeof ModelParams>;

const usdPerMillion = z.number().nonnegative().finite();

/** Prices in USD per million tokens. Only what the user gives: nothing is looked up or guessed. */
export const ModelPrices = z
  .object({
    input: usdPerMillion,
    output: usdPerMillion,
    cacheRead: usdPerMillion.optional(),
    cacheWrite: usdPerMillion.optional(),
  })
  .strict();
export type ModelPrices = z.infer<typeof ModelPrices>;

/**
 * Prices as typed: "INPUT,OUTPUT[,CACHE_READ[,CACHE_WRITE]]", USD per million tokens (the CLI's
 * --price, the app's field). A cache price may be left empty ("3,15,,3.75"): unpriced, which is not
 * free — a run that reads the cache then has no cost (src/shared/rerun/cost.ts), never a low one.
 */
export function parsePrices(text: string): Result<ModelPrices> {
  const parts = text.split(',').map((p) => p.trim());
  const num = (p: string | undefined): number | undefined => (p === undefined || p === '' ? undefined : Number(p));
  const [input, output, cacheRead, cacheWrite] = [num(parts[0]), num(parts[1]), num(parts[2]), num(parts[3])];
  const given = [input, output, cacheRead, cacheWrite].filter((n): n is number => n !== undefined);
  if (
    parts.length < 2 ||
    parts.length > 4 ||
    input === undefined ||
    output === undefined ||
    given.some((n) => !Number.isFinite(n) || n < 0)
  ) {
    return { ok: false, error: `prices are INPUT,OUTPUT[,CACHE_READ[,CACHE_WRITE]] in USD per million tokens, got "${text}"` };
  }
  return {
    ok: true,
    value: { input, output, ...(cacheRead !== undefined ? { cacheRead } : {}), ...(cacheWrite !== undefined ? { cacheWrite } : {}) },
  };
}

/** The same prices as they are typed (parsePrices' input); an unpriced cache stays empty. */
export function pricesText(p: ModelPrices): string {
  const parts: string[] = [String(p.input), String(p.output)];
  if (p.cacheRead !== undefined || p.cacheWrite !== undefined) parts.push(p.cacheRead !== undefined ? String(p.cacheRead) : '');
  if (p.cacheWrite !== undefined) parts.push(String(p.cacheWrite));
  return parts.join(',');
}

export const PinnedModel = z
  .object({
    provider: ProviderId,
    model: z.string().min(1),
    /** Endpoint (http or https). Absent: the provider's official endpoint (environment overrides are ignored). */
    baseUrl: z.url({ protocol: /^https?$/ }).optional(),
    /** Name of the environment variable holding the key (never the key itself). */
    keyEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')
      .optional(),
    params: ModelParams.default({}),
    /** Context window in tokens, as known (pinned or reported); null: unknown. */
    window: z.number().int().positive().nullable().default(null),
    prices: ModelPrices.optional(),
  })
  .strict();
export type PinnedModel = z.infer<typeof PinnedModel>;
export type PinnedModelInput = z.input<typeof PinnedModel>;

/**
 * The ordered summarization models of a re-run (cosh, "Summarization model selection"):
 * - empty: summaries use the session's own connector (its route resolved to a pinned model,
 *   reasoning included; see `resolveSummarizationModels`);
 * - non-empty: only these models, in order. Bounded retries run on one model before the next is
 *   tried; neither the agent's model nor any other model is appended implicitly;
 * - cancellation stops the chain; exhaustion is a failure that keeps the source, never a reason to
 *   substitute an unselected model;
 * - a context overflow goes back to the strategy (it repartitions) and does not advance the chain.
 */
export const SummarizationChain = z.array(PinnedModel);
export type SummarizationChain = z.infer<typeof SummarizationChain>;

/** "provider:model", the label run records and notifications use. */
export function modelLabel(p: Pick<PinnedModel, 'provider' | 'model'>): string {
  return `${p.provider}:${p.model}`;
}

function issuesText(e: z.ZodError): string {
  return e.issues.map((i) => (i.path.length > 0 ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
}

export type ModelSpecOptions = Omit<PinnedModelInput, 'provider' | 'model'>;

/**
 * Parses "PROVIDER:MODEL" (the first colon splits, so Ollama's "openai:llama3.1:8b" keeps its tag)
 * plus options into a validated pinned model.
 */
export function parseModelSpec(spec: string, options: ModelSpecOptions = {}): Result<PinnedModel> {
  const s = spec.trim();
  const colon = s.indexOf(':');
  if (colon < 0)
    return { ok: false, error: `"${spec}" is not PROVIDER:MODEL (for example anthropic:claude-sonnet-4-5 or openai:gpt-4.1).` };
  const provider = s.slice(0, colon);
  const model = s.slice(colon + 1);
  const p = ProviderId.safeParse(provider);
  if (!p.success)
    return { ok: false, error: `Unknown provider "${provider}" in "${spec}"; expected one of ${ProviderId.options.join(', ')}.` };
  if (model.trim() === '') return { ok: false, error: `"${spec}" names no model after "${provider}:".` };
  const r = PinnedModel.safeParse({ ...options, provider: p.data, model });
  if (!r.success) return { ok: false, error: `Invalid settings for ${provider}:${model}: ${issuesText(r.error)}` };
  return { ok: true, value: r.data };
}

/**
 * The session's own connector as a pinned model (cosh: an empty chain uses the agent's
 * connector, including its reasoning choices and output setting). Fails, rather than guesses,
 * when the route names no provider we can speak or no model.
 */
export function pinnedFromRoute(route: Route | null, options: ModelSpecOptions = {}): Result<PinnedModel> {
  if (!route?.provider || !route.model)
    return { ok: false, error: 'The session does not record its model route; choose a summarization model.' };
  const reasoning = ReasoningEffort.safeParse(route.reasoning);
  const params: ModelParams = {
    ...(route.maxOutput !== undefined ? { maxOutput: route.maxOutput } : {}),
    ...(reasoning.success ? { reasoning: reasoning.data } : {}),
    ...options.params,
  };
  return parseModelSpec(`${route.provider}:${route.model}`, { window: route.window ?? null, ...options, params });
}

/** cosh: a non-empty chain is used alone; an empty one falls back to the session's connector. */
export function resolveSummarizationModels(chain: SummarizationChain, sessionConnector: PinnedModel | null): PinnedModel[] {
  if (chain.length > 0) return [...chain];
  return sessionConnector ? [sessionConnector] : [];
}
