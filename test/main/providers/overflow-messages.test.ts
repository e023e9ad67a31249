import { describe, expect, it } from 'vitest';
import {
  OPENAI_RESPONSES_OVERFLOW_MESSAGE,
  anthropicOverflowMessage,
  geminiOverflowMessage,
  openaiChatOverflowMessage,
  parseContextOverflow,
} from '../../../src/main/providers/overflow-messages';

/* parseContextOverflow on the providers' own words, as reported in public issues (see overflow-messages.ts). */

describe('parseContextOverflow', () => {
  it("reads window and prompt size from each provider's real error bodies", () => {
    const cases: [number, string, { window: number | null; promptTokens: number | null }][] = [
      [
        400,
        '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"},"request_id":"req_011CVQe1dLrGNMJyE1ghG1av"}',
        { window: 200000, promptTokens: 208310 },
      ],
      [
        400,
        '{"type":"error","error":{"type":"invalid_request_error","message":"input length and `max_tokens` exceed context limit: 189136 + 20000 > 204648, decrease input length or `max_tokens` and try again"}}',
        { window: 204648, promptTokens: 189136 },
      ],
      [
        400,
        '{"error":{"message":"This model\'s maximum context length is 4097 tokens. However, your messages resulted in 4294 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}',
        { window: 4097, promptTokens: 4294 },
      ],
      [
        400,
        "This model's maximum context length is 4097 tokens. However, you requested 4268 tokens (4012 in the messages, 256 in the completion). Please reduce the length of the messages or completion.",
        { window: 4097, promptTokens: 4012 },
      ],
      [
        400,
        "400 This model's maximum context length is 128000 tokens. However, your messages resulted in 202868 tokens (202767 in the messages, 101 in the functions). Please reduce the length of the messages or functions.",
        { window: 128000, promptTokens: 202868 },
      ],
      [
        400,
        '{"error":{"code":400,"message":"The input token count (132478) exceeds the maximum number of tokens allowed (131072).","status":"INVALID_ARGUMENT"}}',
        { window: 131072, promptTokens: 132478 },
      ],
      // Gemini's error as JSON inside a gateway's JSON string.
      [
        400,
        '{"error":{"message":"{\\n  \\"error\\": {\\n    \\"code\\": 400,\\n    \\"message\\": \\"The input token count (3475108) exceeds the maximum number of tokens allowed (1048576).\\",\\n    \\"status\\": \\"INVALID_ARGUMENT\\"\\n  }\\n}\\n","code":400}}',
        { window: 1048576, promptTokens: 3475108 },
      ],
      // A Go proxy's encoding escapes ">".
      [400, '{"error":{"message":"prompt is too long: 211180 tokens \\u003e 200000 maximum"}}', { window: 200000, promptTokens: 211180 }],
      // The Responses API names no numbers, in a 400 or in a stream's response.failed (status 0).
      [
        400,
        `{"error":{"message":"${OPENAI_RESPONSES_OVERFLOW_MESSAGE}","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}`,
        { window: null, promptTokens: null },
      ],
      [0, `{"code":"context_length_exceeded","message":"${OPENAI_RESPONSES_OVERFLOW_MESSAGE}"}`, { window: null, promptTokens: null }],
    ];
    for (const [status, body, want] of cases) expect(parseContextOverflow(status, body), body).toEqual(want);
  });

  it('is not fooled by other errors, nor by overflow words in a server error', () => {
    expect(
      parseContextOverflow(
        400,
        '{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: 10000 > 4096, which is the maximum allowed number of output tokens for claude-3-5-sonnet-20240620"}}',
      ),
    ).toBeNull();
    expect(parseContextOverflow(429, '{"error":{"message":"Rate limit reached","code":"rate_limit_exceeded"}}')).toBeNull();
    expect(parseContextOverflow(500, 'prompt is too long: 5 tokens > 4 maximum')).toBeNull();
    expect(parseContextOverflow(200, 'prompt is too long: 5 tokens > 4 maximum')).toBeNull();
  });

  it('reads back every message the mock builds', () => {
    expect(parseContextOverflow(400, anthropicOverflowMessage(5001, 5000))).toEqual({ window: 5000, promptTokens: 5001 });
    expect(parseContextOverflow(400, openaiChatOverflowMessage(70_000, 65_536))).toEqual({ window: 65_536, promptTokens: 70_000 });
    expect(parseContextOverflow(400, geminiOverflowMessage(2_000_000, 1_048_576))).toEqual({ window: 1_048_576, promptTokens: 2_000_000 });
  });
});
