import { describe, expect, it } from 'vitest';
import { countText } from './counter';

/* The counter's reading rules, each on the smallest log that shows it (shapes as the clients write them). */

const jsonl = (...records: unknown[]): string => records.map((r) => JSON.stringify(r)).join('\n') + '\n';

const cc = (uuid: string, parentUuid: string | null, type: string, extra: Record<string, unknown> = {}) => ({
  uuid,
  parentUuid,
  type,
  sessionId: 's',
  version: '2.1.39',
  ...extra,
});
const reply = (id: string, input: number, model = 'claude-opus-4-6') => ({
  message: {
    id,
    model,
    role: 'assistant',
    content: [],
    usage: { input_tokens: input, cache_read_input_tokens: 100, cache_creation_input_tokens: 10 },
  },
});

describe('counter: Claude Code', () => {
  it('counts distinct message ids on the branch of the newest record, through a compaction', () => {
    const c = countText(
      jsonl(
        cc('u1', null, 'user'),
        cc('a1', 'u1', 'assistant', reply('m1', 5)),
        cc('a2', 'a1', 'assistant', reply('m1', 5)), // the same response, a second record
        cc('x1', 'u1', 'assistant', reply('m-abandoned', 900)), // a branch the newest record is not on
        {
          type: 'system',
          subtype: 'compact_boundary',
          uuid: 'b1',
          parentUuid: null,
          logicalParentUuid: 'a2',
          compactMetadata: { trigger: 'manual' },
        },
        cc('u2', 'b1', 'user', { isCompactSummary: true }),
        cc('a3', 'u2', 'assistant', reply('m2', 7)),
      ),
    );
    expect(c).toMatchObject({
      client: 'claude-code',
      version: '2.1.39',
      requests: 2,
      compactions: 1,
      triggers: { auto: 0, manual: 1, unknown: 0 },
      peakContext: 117,
    });
  });

  it('counts an API error as a request, not a client-written message', () => {
    const c = countText(
      jsonl(
        cc('u1', null, 'user'),
        cc('a1', 'u1', 'assistant', { ...reply('e1', 0, '<synthetic>'), isApiErrorMessage: true }),
        cc('u2', 'a1', 'user'),
        cc('a2', 'u2', 'assistant', reply('n1', 0, '<synthetic>')),
      ),
    );
    expect(c.requests).toBe(1);
  });

  it('continues from the record before a boundary whose logical parent is not in the file', () => {
    const c = countText(
      jsonl(
        cc('u1', null, 'user'),
        cc('a1', 'u1', 'assistant', reply('m1', 5)),
        {
          type: 'system',
          subtype: 'compact_boundary',
          uuid: 'b1',
          parentUuid: null,
          logicalParentUuid: 'gone',
          compactMetadata: { trigger: 'auto' },
        },
        cc('u2', 'b1', 'user'),
        cc('a2', 'u2', 'assistant', reply('m2', 5)),
      ),
    );
    expect(c).toMatchObject({ requests: 2, compactions: 1, triggers: { auto: 1, manual: 0, unknown: 0 } });
  });

  it('skips bad lines and counts them', () => {
    const c = countText(`${JSON.stringify(cc('u1', null, 'user'))}\nnot json\n[1]\n`);
    expect(c.badLines).toBe(2);
  });
});

const meta = { type: 'session_meta', payload: { id: 't', cli_version: '0.63.0' } };
const ev = (type: string, extra: Record<string, unknown> = {}) => ({ type: 'event_msg', payload: { type, ...extra } });
const item = (type: string, extra: Record<string, unknown> = {}) => ({ type: 'response_item', payload: { type, ...extra } });
let total = 0;
const usage = (input: number) => {
  total += input + 10;
  return ev('token_count', {
    info: {
      last_token_usage: { input_tokens: input, output_tokens: 10, total_tokens: input + 10 },
      total_token_usage: { input_tokens: total, total_tokens: total },
    },
  });
};
const estimate = ev('token_count', { info: { last_token_usage: { input_tokens: 0, output_tokens: 0, total_tokens: 5000 } } });

describe('counter: Codex', () => {
  it('usage after output: one call per new usage; a repeated report is no call', () => {
    total = 0;
    const u1 = usage(100);
    const c = countText(
      jsonl(
        meta,
        ev('task_started'),
        ev('user_message'),
        item('reasoning'),
        item('function_call'),
        u1,
        item('function_call_output'),
        u1,
        item('message', { role: 'assistant' }),
        usage(200),
        ev('task_complete'),
      ),
    );
    expect(c).toMatchObject({ client: 'codex', version: '0.63.0', requests: 2, peakContext: 200 });
  });

  it("usage before output: the output after a usage report is that call's, not one more", () => {
    total = 0;
    const c = countText(
      jsonl(
        meta,
        ev('task_started'),
        ev('user_message'),
        usage(100),
        item('reasoning'),
        item('function_call'),
        item('function_call_output'),
        usage(200),
        item('message', { role: 'assistant' }),
        ev('turn_aborted'),
      ),
    );
    expect(c.requests).toBe(2);
  });

  it('an aborted call with output and no usage is a call', () => {
    total = 0;
    const c = countText(
      jsonl(
        meta,
        ev('task_started'),
        ev('user_message'),
        item('function_call'),
        usage(100),
        item('function_call_output'),
        item('reasoning'),
        ev('turn_aborted'),
      ),
    );
    expect(c.requests).toBe(2);
  });

  it('a usage report with no output followed by `compacted` is the summarizer; triggers from the turn', () => {
    total = 0;
    const c = countText(
      jsonl(
        meta,
        ev('task_started'),
        ev('user_message'),
        item('message', { role: 'assistant' }),
        usage(100),
        usage(90),
        { type: 'compacted', payload: { message: 's' } },
        estimate,
        ev('task_complete'),
        ev('task_started'),
        { type: 'compacted', payload: { message: 's' } },
        ev('task_complete'),
        { type: 'compacted', payload: { message: 's' } },
      ),
    );
    expect(c).toMatchObject({ requests: 1, summarizerRequests: 1, compactions: 3, triggers: { auto: 1, manual: 1, unknown: 1 } });
  });
});
