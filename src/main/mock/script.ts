import { z } from 'zod';

/*
 * The script a mock provider answers from: an ordered list of steps, each a scripted reply or a
 * fault, with an optional predicate on the request. Protocol-neutral: the same reply is rendered as
 * an Anthropic Messages, OpenAI Responses, Chat Completions or Gemini answer by the protocol adapter
 * that received the request (./protocols). JSON-serialisable so scenario files can carry it.
 *
 * Matching: for each request, the steps are tried in order; a step is skipped once it has been used
 * `times` times; the first remaining step whose `when` holds answers (so a list of steps without
 * `when` is consumed in order, and a step with a predicate — "the request whose last user message
 * contains 'summary'" — picks out the request it is meant for wherever it comes). When no step
 * matches, `fallback` answers; without a fallback the request gets HTTP 500 `script_exhausted`.
 */

/**
 * Neutral stop reasons; each protocol maps them (anthropic end_turn/tool_use/max_tokens/…, responses
 * completed/incomplete, chat stop/length/tool_calls/content_filter, gemini STOP/MAX_TOKENS/SAFETY/OTHER).
 * `missing`: the answer ends cleanly with no terminal finish signal at all (each adapter documents
 * what that looks like on its wire); a client must treat it as an incomplete answer.
 */
export const StopReason = z.enum(['end', 'tool', 'length', 'refusal', 'pause', 'stop_sequence', 'missing']);
export type StopReason = z.infer<typeof StopReason>;

export const ScriptUsage = z.object({
  input: z.number().int().nonnegative().optional(),
  output: z.number().int().nonnegative().optional(),
  /** Anthropic cache_read_input_tokens / Responses input_tokens_details.cached_tokens. */
  cacheRead: z.number().int().nonnegative().optional(),
  /** Anthropic cache_creation_input_tokens. */
  cacheWrite: z.number().int().nonnegative().optional(),
  /** Responses output_tokens_details.reasoning_tokens. */
  reasoning: z.number().int().nonnegative().optional(),
});
export type ScriptUsage = z.infer<typeof ScriptUsage>;

export const ReplyBlock = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  /** Anthropic thinking block / Responses reasoning item (summary text). */
  z.object({ type: z.literal('thinking'), text: z.string(), signature: z.string().optional() }),
  z.object({
    type: z.literal('tool_call'),
    name: z.string(),
    /** Arguments as an object (serialised with JSON.stringify) or a raw string sent as is. */
    input: z.union([z.record(z.string(), z.unknown()), z.string()]),
    /** Call id; default `toolu_mock_<request>_<i>` / `call_mock_<request>_<i>`. */
    id: z.string().optional(),
  }),
]);
export type ReplyBlock = z.infer<typeof ReplyBlock>;

export const Reply = z.object({
  content: z.array(ReplyBlock).default([]),
  /** Default: `tool` when the content has a tool call, else `end`. */
  stop: StopReason.optional(),
  /** A raw stop/status string sent instead of the mapped one (to test unknown reasons). */
  rawStop: z.string().optional(),
  usage: ScriptUsage.optional(),
  /** Model name in the response; default: the model the request asked for. */
  model: z.string().optional(),
  /** Wait this long before the status line and headers (a slow first byte). Ends early if the client disconnects. */
  firstByteMs: z.number().int().nonnegative().max(600_000).optional(),
  /** Pause between SSE events (overrides the server's eventDelayMs for this reply). */
  eventDelayMs: z.number().int().nonnegative().max(60_000).optional(),
});
export type Reply = z.infer<typeof Reply>;
export type ReplyInput = z.input<typeof Reply>;

export const Fault = z.discriminatedUnion('kind', [
  /**
   * Any HTTP error with the protocol's error body. `headers` (on every HTTP fault) are added to the
   * answer: `retry-after-ms` / `x-should-retry` steer the Anthropic SDK's retries.
   */
  z.object({
    kind: z.literal('http'),
    status: z.number().int().min(400).max(599),
    /** The protocol's error type (anthropic `api_error`, responses `server_error`…); default from the status. */
    errorType: z.string().optional(),
    message: z.string().optional(),
    headers: z.record(z.string(), z.string()).optional(),
  }),
  /** Anthropic 529 overloaded_error; on the Responses API 503 with `server_is_overloaded`. */
  z.object({ kind: z.literal('overloaded'), message: z.string().optional(), headers: z.record(z.string(), z.string()).optional() }),
  /** 429 with a retry-after header (seconds). */
  z.object({
    kind: z.literal('rate_limit'),
    retryAfter: z.number().nonnegative().default(0),
    message: z.string().optional(),
    headers: z.record(z.string(), z.string()).optional(),
  }),
  /**
   * A stream that starts normally with this reply and is cut (the socket destroyed) after `after`
   * SSE events. Non-streaming requests get their connection destroyed before any byte.
   */
  z.object({ kind: z.literal('cut'), after: z.number().int().nonnegative().default(2), reply: Reply.optional() }),
  /** A 200 stream that ends with the protocol's in-stream error event (anthropic `error`, responses `response.failed`). */
  z.object({
    kind: z.literal('stream_error'),
    errorType: z.string().optional(),
    message: z.string().optional(),
    after: z.number().int().nonnegative().default(1),
  }),
  /**
   * The request does not fit the model's window: each protocol's real 400 (src/main/providers/overflow-messages.ts).
   * `promptTokens` defaults to the larger of window + 1 and a quarter of the body bytes. `message`
   * replaces the protocol's wording. `inStream` (Responses only, streaming requests): deliver it as
   * the real API does mid-stream, a 200 stream ending in `response.failed` with code
   * context_length_exceeded; the other APIs reject before streaming, so they always answer 400.
   */
  z.object({
    kind: z.literal('context_overflow'),
    window: z.number().int().positive(),
    promptTokens: z.number().int().positive().optional(),
    message: z.string().optional(),
    inStream: z.boolean().default(false),
    headers: z.record(z.string(), z.string()).optional(),
  }),
]);
export type Fault = z.infer<typeof Fault>;
export type FaultInput = z.input<typeof Fault>;

/** A predicate on a request. Every condition given must hold. Texts match case-sensitively as substrings. */
export interface Matcher {
  /** Protocol adapter id: `anthropic-messages`, `openai-responses`, `openai-chat`, `gemini`. */
  readonly protocol?: string | undefined;
  /** Substring of the model asked for. */
  readonly model?: string | undefined;
  readonly stream?: boolean | undefined;
  /** Anywhere in the text the request carries (system, messages/input, tool results; not the tool schemas). */
  readonly contains?: string | undefined;
  /** In the system prompt / instructions. */
  readonly systemContains?: string | undefined;
  /** In the last user message (Responses: the last input item that is a user message). */
  readonly lastUserContains?: string | undefined;
  /** In the raw body bytes (decoded as UTF-8). */
  readonly bodyContains?: string | undefined;
  /** The request carries tool schemas (true) or none (false). */
  readonly hasTools?: boolean | undefined;
  readonly not?: Matcher | undefined;
  readonly any?: readonly Matcher[] | undefined;
}
export const Matcher: z.ZodType<Matcher> = z.lazy(() =>
  z
    .object({
      protocol: z.string().optional(),
      model: z.string().optional(),
      stream: z.boolean().optional(),
      contains: z.string().optional(),
      systemContains: z.string().optional(),
      lastUserContains: z.string().optional(),
      bodyContains: z.string().optional(),
      hasTools: z.boolean().optional(),
      not: Matcher.optional(),
      any: z.array(Matcher).optional(),
    })
    .strict(),
);

export const Step = z
  .object({
    /** A name for reports and the recording. */
    label: z.string().optional(),
    when: Matcher.optional(),
    /** How many requests this step answers (default 1; 0 = unlimited). */
    times: z.number().int().nonnegative().default(1),
    reply: Reply.optional(),
    fault: Fault.optional(),
  })
  .refine((s) => (s.reply === undefined) !== (s.fault === undefined), { message: 'a step has exactly one of reply or fault' });
export type Step = z.infer<typeof Step>;

export const Script = z.object({
  steps: z.array(Step).default([]),
  /** Answers any request no step matched (e.g. a plain "OK" for a title-generation call). */
  fallback: Reply.optional(),
});
export type Script = z.infer<typeof Script>;
export type ScriptInput = z.input<typeof Script>;

/** What a protocol adapter extracts from a request for matching and for reports. */
export interface RequestDigest {
  readonly protocol: string;
  readonly model: string | null;
  readonly stream: boolean;
  readonly system: string;
  /** All text of the conversation, in order, joined with newlines. */
  readonly text: string;
  /** Text of the first user message (the request that opened the conversation). */
  readonly firstUser: string;
  readonly lastUser: string;
  readonly hasTools: boolean;
  /** The output ceiling the request asked for (max_tokens, max_output_tokens, maxOutputTokens…); null: none. */
  readonly maxOutput: number | null;
  readonly raw: string;
}

export function matches(m: Matcher | undefined, d: RequestDigest): boolean {
  if (!m) return true;
  if (m.protocol !== undefined && m.protocol !== d.protocol) return false;
  if (m.model !== undefined && !(d.model ?? '').includes(m.model)) return false;
  if (m.stream !== undefined && m.stream !== d.stream) return false;
  if (m.contains !== undefined && !d.text.includes(m.contains) && !d.system.includes(m.contains)) return false;
  if (m.systemContains !== undefined && !d.system.includes(m.systemContains)) return false;
  if (m.lastUserContains !== undefined && !d.lastUser.includes(m.lastUserContains)) return false;
  if (m.bodyContains !== undefined && !d.raw.includes(m.bodyContains)) return false;
  if (m.hasTools !== undefined && m.hasTools !== d.hasTools) return false;
  if (m.not !== undefined && matches(m.not, d)) return false;
  if (m.any !== undefined && !m.any.some((x) => matches(x, d))) return false;
  return true;
}

/** The answer chosen for one request. */
export type Choice =
  | { readonly step: number; readonly label: string | null; readonly reply: Reply; readonly fault?: undefined }
  | { readonly step: number; readonly label: string | null; readonly fault: Fault; readonly reply?: undefined }
  | { readonly step: null; readonly label: 'fallback'; readonly reply: Reply; readonly fault?: undefined }
  | { readonly step: null; readonly label: 'exhausted'; readonly fault: Fault; readonly reply?: undefined };

/** A script being played: keeps how often each step was used. */
export class ScriptPlayer {
  readonly script: Script;
  private readonly used: number[];

  constructor(script: ScriptInput | Script) {
    this.script = Script.parse(script);
    this.used = this.script.steps.map(() => 0);
  }

  choose(d: RequestDigest): Choice {
    const steps = this.script.steps;
    for (let i = 0; i < steps.length; i++) {
      const s = steps[i] as Step;
      const n = this.used[i] ?? 0;
      if (s.times !== 0 && n >= s.times) continue;
      if (!matches(s.when, d)) continue;
      this.used[i] = n + 1;
      const label = s.label ?? null;
      if (s.fault) return { step: i, label, fault: s.fault };
      return { step: i, label, reply: s.reply as Reply };
    }
    if (this.script.fallback) return { step: null, label: 'fallback', reply: this.script.fallback };
    return {
      step: null,
      label: 'exhausted',
      fault: {
        kind: 'http',
        status: 500,
        errorType: 'script_exhausted',
        message: 'The mock provider script has no step for this request.',
      },
    };
  }

  /** Steps not used as often as scripted (0 = unlimited steps count as used once used). */
  unused(): { step: number; label: string | null; used: number; times: number }[] {
    return this.script.steps
      .map((s, i) => ({ step: i, label: s.label ?? null, used: this.used[i] ?? 0, times: s.times }))
      .filter((x) => (x.times === 0 ? x.used === 0 : x.used < x.times));
  }
}
