import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SessionInspector } from '../../src/main/session/inspector';
import { loadSession } from '../../src/main/session/load';
import { diagnose } from '../../src/shared/diagnostics';

/**
 * The inferred-failure rules on Claude Code lines as the client writes them (2.1.x shapes), through
 * the real importer: a `<synthetic>` "No response requested." reply and `isApiErrorMessage` records
 * must reach the rules as the importer keeps them (origin synthetic / api-error).
 */

const dir = mkdtempSync(join(tmpdir(), 'palimpsest-inferred-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
const base = (uuid: string, parent: string | null, ts: string) => ({
  parentUuid: parent,
  isSidechain: false,
  userType: 'external',
  cwd: '/w',
  sessionId: 's',
  version: '2.1.0',
  uuid,
  timestamp: ts,
});
const user = (uuid: string, parent: string | null, ts: string, text: string) => ({
  type: 'user',
  ...base(uuid, parent, ts),
  message: { role: 'user', content: text },
});
const assistant = (
  uuid: string,
  parent: string,
  ts: string,
  text: string,
  usage: Record<string, number>,
  extra: Record<string, unknown> = {},
  model = 'claude-sonnet-4-5',
) => ({
  type: 'assistant',
  ...base(uuid, parent, ts),
  ...extra,
  message: {
    id: `msg_${uuid}`,
    type: 'message',
    role: 'assistant',
    model,
    content: [{ type: 'text', text }],
    stop_reason: 'end_turn',
    usage,
  },
});
const BIG = { input_tokens: 6, cache_read_input_tokens: 169_000, cache_creation_input_tokens: 1_000, output_tokens: 30 };
const NONE = { input_tokens: 0, output_tokens: 0 };

async function rules(lines: object[]): Promise<{ rule: string; message: string; seqs: number[] }[]> {
  const path = join(dir, `s${++n}.jsonl`);
  writeFileSync(path, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const session = await loadSession(path);
  try {
    const ins = new SessionInspector(session);
    const state = ins.replay(ins.defaultBranch);
    return diagnose(
      { events: session.events, state, format: session.format },
      { only: ['PROMPT_UNANSWERED_INFERRED', 'API_ERROR_NEAR_COMPACTION', 'COMPACTION_FAILURE_NOTICE'] },
    ).map((d) => ({ rule: d.rule, message: d.message, seqs: d.seqs }));
  } finally {
    await session.dispose();
  }
}

describe('inferred failures from Claude Code lines', () => {
  it('a prompt past the trigger answered only by the synthetic "No response requested." and sent again', async () => {
    const ds = await rules([
      user('u1', null, '2026-01-01T10:00:00.000Z', 'Read the dump.'),
      assistant('a1', 'u1', '2026-01-01T10:00:05.000Z', 'Read it.', BIG),
      user('u2', 'a1', '2026-01-01T10:01:00.000Z', 'Fix the schema.'),
      assistant('s1', 'u2', '2026-01-01T10:01:00.000Z', 'No response requested.', NONE, {}, '<synthetic>'),
      user('u3', 's1', '2026-01-01T10:06:00.000Z', 'Fix the schema.'),
      assistant('a3', 'u3', '2026-01-01T10:06:05.000Z', 'Fixed.', { input_tokens: 6, cache_read_input_tokens: 9_000, output_tokens: 3 }),
    ]);
    expect(ds.map((d) => d.rule)).toEqual(['PROMPT_UNANSWERED_INFERRED']);
    expect(ds[0]?.message).toContain('Claude Code wrote its synthetic reply "No response requested."');
    expect(ds[0]?.message).toContain('the same prompt was logged again');
    expect(ds[0]?.message).toContain('5 minutes later');
    expect(ds[0]?.message).toContain('inferred from the log');
  });

  it('names the window the trigger assumes, and infers nothing from a trigger on a larger window', async () => {
    const prompt = [
      user('u2', 'a1', '2026-01-01T10:01:00.000Z', 'Fix the schema.'),
      assistant('s1', 'u2', '2026-01-01T10:01:00.000Z', 'No response requested.', NONE, {}, '<synthetic>'),
      user('u3', 's1', '2026-01-01T10:06:00.000Z', 'Fix the schema.'),
    ];
    const on200k = await rules([
      user('u1', null, '2026-01-01T10:00:00.000Z', 'Read the dump.'),
      assistant('a1', 'u1', '2026-01-01T10:00:05.000Z', 'Read it.', BIG),
      ...prompt,
    ]);
    expect(on200k[0]?.message).toContain(
      'on the 200,000-token window (the log does not record the window; no request of the session reported more)',
    );
    // A request of the session reported 240,000 tokens: it ran on a larger (1M) window, whose
    // trigger moved from version to version. The 169,000 tokens before the prompt then prove nothing.
    const larger = await rules([
      user('u0', null, '2026-01-01T09:00:00.000Z', 'Load everything.'),
      assistant('a0', 'u0', '2026-01-01T09:00:05.000Z', 'Loaded.', { input_tokens: 6, cache_read_input_tokens: 240_000, output_tokens: 3 }),
      user('u1', 'a0', '2026-01-01T10:00:00.000Z', 'Read the dump.'),
      assistant('a1', 'u1', '2026-01-01T10:00:05.000Z', 'Read it.', BIG),
      ...prompt,
    ]);
    expect(larger).toEqual([]);
  });

  it('the same session with the prompt answered is silent', async () => {
    const ds = await rules([
      user('u1', null, '2026-01-01T10:00:00.000Z', 'Read the dump.'),
      assistant('a1', 'u1', '2026-01-01T10:00:05.000Z', 'Read it.', BIG),
      user('u2', 'a1', '2026-01-01T10:01:00.000Z', 'Fix the schema.'),
      assistant('a2', 'u2', '2026-01-01T10:01:30.000Z', 'Fixed.', { input_tokens: 6, cache_read_input_tokens: 9_000, output_tokens: 3 }),
    ]);
    expect(ds).toEqual([]);
  });

  it('an isApiErrorMessage "Prompt is too long" record, and the thrashing notice', async () => {
    const ds = await rules([
      user('u1', null, '2026-01-01T10:00:00.000Z', 'Read the dump.'),
      assistant('a1', 'u1', '2026-01-01T10:00:05.000Z', 'Read it.', BIG),
      user('u2', 'a1', '2026-01-01T10:01:00.000Z', 'Read the other dump.'),
      assistant(
        'e1',
        'u2',
        '2026-01-01T10:01:02.000Z',
        'Prompt is too long',
        NONE,
        { isApiErrorMessage: true, error: 'invalid_request' },
        '<synthetic>',
      ),
      user('u3', 'e1', '2026-01-01T10:02:00.000Z', 'Try again.'),
      assistant(
        'e2',
        'u3',
        '2026-01-01T10:02:02.000Z',
        'Autocompact is thrashing: the context refilled to the limit within 3 turns of the previous compact, 3 times in a row.',
        NONE,
        { isApiErrorMessage: true, error: 'invalid_request' },
        '<synthetic>',
      ),
    ]);
    expect(ds.map((d) => d.rule)).toEqual(['API_ERROR_NEAR_COMPACTION', 'COMPACTION_FAILURE_NOTICE']);
    expect(ds[0]?.message).toContain('failed with the API error "Prompt is too long" (invalid_request)');
    expect(ds[0]?.message).toContain('past the 167,000-token automatic compaction trigger');
    expect(ds[1]?.message).toContain('Claude Code reported "Autocompact is thrashing:');
  });

  it('a "Prompt is too long" whose last reported size was under the trigger does not blame a compaction', async () => {
    // As in a real Claude Code 2.1.101 session of the corpus: 152,581 tokens reported, then /model
    // switches to another model and the next prompt fails as too long; no compaction was due by the log.
    const ds = await rules([
      user('u1', null, '2026-01-01T10:00:00.000Z', 'Read the dump.'),
      assistant('a1', 'u1', '2026-01-01T10:00:05.000Z', 'Read it.', {
        input_tokens: 1,
        cache_read_input_tokens: 152_580,
        output_tokens: 30,
      }),
      user('u2', 'a1', '2026-01-01T15:00:00.000Z', 'Serena'),
      assistant(
        'e1',
        'u2',
        '2026-01-01T15:00:03.000Z',
        'Prompt is too long',
        NONE,
        { isApiErrorMessage: true, error: 'invalid_request' },
        '<synthetic>',
      ),
    ]);
    expect(ds.map((d) => d.rule)).toEqual(['API_ERROR_NEAR_COMPACTION']);
    expect(ds[0]?.message).toContain('failed with the API error "Prompt is too long" (invalid_request)');
    expect(ds[0]?.message).toContain(
      'reported 152,581 tokens (reported by the provider), under the 167,000-token automatic compaction trigger',
    );
    expect(ds[0]?.message).toContain('the log does not say whether a compaction was due');
    expect(ds[0]?.message).not.toContain('failed or did not run');
  });

  it('a "Prompt is too long" after an automatic compaction that committed is silent: the compaction did run', async () => {
    // As in real Claude Code sessions of the corpus: boundary and summary, then the next request fails.
    const ds = await rules([
      user('u1', null, '2026-01-01T10:00:00.000Z', 'Read the dump.'),
      assistant('a1', 'u1', '2026-01-01T10:00:05.000Z', 'Read it.', BIG),
      {
        type: 'system',
        subtype: 'compact_boundary',
        content: 'Conversation compacted',
        level: 'info',
        ...base('b1', null, '2026-01-01T10:01:00.000Z'),
        logicalParentUuid: 'a1',
        compactMetadata: { trigger: 'auto', preTokens: 170_036 },
      },
      {
        type: 'user',
        ...base('c1', 'b1', '2026-01-01T10:01:00.000Z'),
        isCompactSummary: true,
        isVisibleInTranscriptOnly: true,
        message: {
          role: 'user',
          content: 'This session is being continued from a previous conversation that ran out of context. Summary: read the dump.',
        },
      },
      user('u2', 'c1', '2026-01-01T10:01:01.000Z', 'Read the other dump.'),
      assistant(
        'e1',
        'u2',
        '2026-01-01T10:01:02.000Z',
        'Prompt is too long',
        NONE,
        { isApiErrorMessage: true, error: 'invalid_request' },
        '<synthetic>',
      ),
    ]);
    expect(ds.filter((d) => d.rule === 'API_ERROR_NEAR_COMPACTION')).toEqual([]);
  });
});
