/*
 * Context-overflow errors as the real providers word them: the builders the mock answers with, and
 * a parser provider code uses to read the window (and the prompt size) back from any of them.
 * Shapes as seen in public issue reports (all HTTP 400):
 * - Anthropic: {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too
 *   long: 208310 tokens > 200000 maximum"}} (anthropics/claude-code#12186, boldsoftware/exe.dev#62);
 *   older models: "input length and `max_tokens` exceed context limit: 189136 + 20000 > 204648,
 *   decrease input length or `max_tokens` and try again" (anthropics/claude-code#408).
 * - OpenAI Chat Completions: {"error":{"message":"This model's maximum context length is 4097
 *   tokens. However, your messages resulted in 4294 tokens. Please reduce the length of the
 *   messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}
 *   (chathub-dev/chathub#126); with an output request: "However, you requested 4268 tokens (4012 in
 *   the messages, 256 in the completion)" (conghaonet/hao_chatgpt#4).
 * - OpenAI Responses: code context_length_exceeded, param "input", and a message WITHOUT numbers:
 *   "Your input exceeds the context window of this model. Please adjust your input and try again."
 *   Streaming requests get it mid-stream in `response.failed` (openai/codex#2921,
 *   james-6-23/codex2api#310, dyad-sh/dyad#1672). So the window is not reported there.
 * - Gemini: {"error":{"code":400,"message":"The input token count (132478) exceeds the maximum number
 *   of tokens allowed (131072).","status":"INVALID_ARGUMENT"}} (google-gemini/gemini-cli#4118).
 */

export function anthropicOverflowMessage(promptTokens: number, window: number): string {
  return `prompt is too long: ${promptTokens} tokens > ${window} maximum`;
}

export function openaiChatOverflowMessage(promptTokens: number, window: number): string {
  return `This model's maximum context length is ${window} tokens. However, your messages resulted in ${promptTokens} tokens. Please reduce the length of the messages.`;
}

/** The Responses API reports no numbers. */
export const OPENAI_RESPONSES_OVERFLOW_MESSAGE =
  'Your input exceeds the context window of this model. Please adjust your input and try again.';

export function geminiOverflowMessage(promptTokens: number, window: number): string {
  return `The input token count (${promptTokens}) exceeds the maximum number of tokens allowed (${window}).`;
}

/** What an overflow error says: the model's window and the prompt's size, each null when not reported. */
export interface ContextOverflow {
  readonly window: number | null;
  readonly promptTokens: number | null;
}

const num = (s: string | undefined): number | null => (s === undefined ? null : Number(s));

/** Recognisers with numbers, tried in order; each returns null when it does not apply. */
const WITH_NUMBERS: readonly ((t: string) => ContextOverflow | null)[] = [
  (t) => {
    const m = /prompt is too long: (\d+) tokens > (\d+) maximum/i.exec(t);
    return m ? { window: num(m[2]), promptTokens: num(m[1]) } : null;
  },
  (t) => {
    const m = /input length and `?max_tokens`? exceed context limit: (\d+) \+ \d+ > (\d+)/i.exec(t);
    return m ? { window: num(m[2]), promptTokens: num(m[1]) } : null;
  },
  (t) => {
    // "maximum context length is W tokens. However, your messages resulted in N tokens (…)" or
    // "…you requested (about) N tokens (X in the messages, C in the completion)": the prompt is N - C.
    const m =
      /maximum context length is (\d+) tokens\.? However, (?:your messages resulted in|you requested(?: about)?) (\d+) tokens(?: \(([^)]*)\))?/i.exec(
        t,
      );
    if (!m) return null;
    const completion = /(\d+) in the completion/i.exec(m[3] ?? '');
    const total = Number(m[2]);
    return { window: num(m[1]), promptTokens: completion ? total - Number(completion[1]) : total };
  },
  (t) => {
    const m = /input token count \(?(\d+)\)? exceeds the maximum number of tokens allowed \(?(\d+)\)?/i.exec(t);
    return m ? { window: num(m[2]), promptTokens: num(m[1]) } : null;
  },
  (t) => {
    const m = /maximum context length is (\d+) tokens/i.exec(t);
    return m ? { window: num(m[1]), promptTokens: null } : null;
  },
];

/** Overflow errors that report no numbers (Responses, gateways, Claude Code's own wording). */
const WITHOUT_NUMBERS =
  /context_length_exceeded|exceeds the context window|prompt is too long|context length exceeded|input token count exceeds the maximum/i;

/**
 * Reads a provider's context-overflow error. `status`: the HTTP status, or 0 for an error that came
 * inside a 200 stream (Responses `response.failed`). `body`: the error body or any text carrying it
 * (an SDK error's message, JSON nested in JSON). null: not an overflow error; a 5xx never is.
 */
export function parseContextOverflow(status: number, body: string): ContextOverflow | null {
  if (status !== 0 && (status < 400 || status > 499)) return null;
  // Some encoders (Go's encoding/json) escape <, >, & and quotes in messages.
  const t = body
    .replace(/\\u003e/gi, '>')
    .replace(/\\u003c/gi, '<')
    .replace(/\\u0026/gi, '&')
    .replace(/\\u0027/gi, "'");
  for (const r of WITH_NUMBERS) {
    const found = r(t);
    if (found) return found;
  }
  return WITHOUT_NUMBERS.test(t) ? { window: null, promptTokens: null } : null;
}
