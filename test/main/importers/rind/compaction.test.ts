import { describe, expect, it } from 'vitest';
import { COMPACT_CONTINUATION_USER_CONTENT } from '../../../../src/main/importers/rind/records';
import { asst, calls, compaction, ids, importRind, marker, record, sys, toolMsg, user } from './helpers';

const before = [
  sys('m1', 'You are Rind.'),
  user('m2', 'Fix it.'),
  calls('m3', [['c1', 'run_shell', '{}']]),
  toolMsg('m4', 'c1'),
  asst('m5', 'Fixed.'),
];
const tools = [record('c1', 'ok')];

describe('Rind compaction pairs', () => {
  it('a valid pair replaces every non-system message by continuation + handoff; system messages and later messages stay', () => {
    const r = importRind({
      tools,
      compactions: [
        compaction('k1', 'llm_inline', '## Handoff', {
          usage: { input_tokens: 1000, cached_input_tokens: 400, output_tokens: 50, reasoning_output_tokens: 0 },
        }),
      ],
      messages: [...before, marker('m6', 'k1'), sys('m7', 'A later system note.'), user('m8', 'Next.'), asst('m9', 'OK.')],
    });
    expect(r.of('compaction/start')).toEqual([
      expect.objectContaining({
        id: 'k1',
        trigger: 'auto',
        strategy: 'llm_inline',
        policy: { name: 'compact_boundary_v3' },
        source: ['m2', 'm3', 'm4', 'm5'],
      }),
    ]);
    expect(r.of('compaction/summary')[0]).toMatchObject({
      id: 'k1',
      summary: [{ type: 'text', text: '## Handoff' }],
      usage: { input: 600, cacheRead: 400, context: 1000, output: 50 },
    });
    expect(r.of('compaction/end')[0]).toMatchObject({ id: 'k1', outcome: 'committed' });
    const pair = r.of('item').filter((e) => e.item.derivation?.kind === 'checkpoint');
    expect(pair.map((e) => [e.item.id, e.item.role, e.item.derivation])).toEqual([
      ['k1:continuation', 'user', { kind: 'checkpoint', compactionId: 'k1', covers: ['m2', 'm3', 'm4', 'm5'], part: 'continuation' }],
      ['k1:handoff', 'assistant', { kind: 'checkpoint', compactionId: 'k1', covers: ['m2', 'm3', 'm4', 'm5'], part: 'handoff' }],
    ]);
    expect(pair[0]?.item.blocks).toEqual([{ type: 'text', text: COMPACT_CONTINUATION_USER_CONTENT }]);
    // The pair and the summary hold the record's text: they are located at its line in
    // compactions.jsonl (file 0); the brackets at the marker (messages.jsonl, file 2, line 6).
    expect([...pair, ...r.of('compaction/summary')].map((e) => [e.file, e.line])).toEqual([
      [0, 1],
      [0, 1],
      [0, 1],
    ]);
    expect([...r.of('compaction/start'), ...r.of('compaction/end')].map((e) => [e.file, e.line])).toEqual([
      [2, 6],
      [2, 6],
    ]);
    // Sources: start, summary, the compaction record, then every covered item's event.
    const start = r.of('compaction/start')[0]?.seq;
    const summary = r.of('compaction/summary')[0]?.seq;
    const rec = r.of('record').find((e) => e.type === 'compaction')?.seq;
    expect(pair[0]?.sources?.slice(0, 3)).toEqual([start, summary, rec]);
    expect(ids(r.view(2))).toEqual(['m1', 'k1:continuation', 'k1:handoff', 'm7', 'm8']);
    const fates = r.fates(2);
    expect(fates.find((f) => f.id === 'm3')?.fate).toEqual({ fate: 'summarised', compactionId: 'k1', by: 'k1:continuation' });
    expect(r.diagnostics.filter((d) => d.severity !== 'info')).toEqual([]);
    expect(r.state.diagnostics).toEqual([]);
  });

  it('deterministic_fallback: summary-error with the recorded error, outcome fallback (deterministic, no marker)', () => {
    const r = importRind({
      tools,
      compactions: [
        compaction('k2', 'deterministic_fallback', 'Context compacted.', {
          fallback_error: { type: 'ValueError', message: 'compact model returned empty handoff' },
        }),
      ],
      messages: [...before, marker('m6', 'k2')],
    });
    const err = { code: 'ValueError', message: 'compact model returned empty handoff' };
    expect(r.of('compaction/summary-error')[0]).toMatchObject({ id: 'k2', error: err });
    expect(r.of('compaction/end')[0]).toMatchObject({
      outcome: 'fallback',
      fallback: { kind: 'deterministic', marker: false },
      error: err,
    });
    expect(r.state.compactions[0]).toMatchObject({
      id: 'k2',
      outcome: 'fallback',
      strategy: 'deterministic_fallback',
      checkpointItems: ['k2:continuation', 'k2:handoff'],
    });
  });

  it('manual_deterministic commits without a summarizer; an unknown strategy is applied and noted', () => {
    const r = importRind({
      tools,
      compactions: [compaction('k3', 'manual_deterministic', 'd', { reason: 'manual' }), compaction('k4', 'novel', 'n')],
      messages: [...before, marker('m6', 'k3'), user('m7', 'x'), marker('m8', 'k4')],
    });
    expect(r.of('compaction/start').map((e) => [e.id, e.trigger])).toEqual([
      ['k3', 'manual'],
      ['k4', 'auto'],
    ]);
    expect(r.of('compaction/summary')).toEqual([]);
    expect(r.of('compaction/end').map((e) => e.outcome)).toEqual(['committed', 'committed']);
    expect(r.rules()).toContain('RIND_UNKNOWN_STRATEGY');
  });

  it('reason context_length_error: the rejected request before the compaction is inferred, with its view', () => {
    const r = importRind({
      tools,
      compactions: [compaction('k5', 'llm_inline', 'h', { reason: 'context_length_error' })],
      messages: [...before, marker('m6', 'k5'), asst('m7', 'Again.')],
    });
    expect(r.of('compaction/start')[0]?.trigger).toBe('overflow');
    const req = r.state.requests[2];
    expect(req?.error?.code).toBe('context_length_exceeded');
    expect(ids(r.view(2))).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);
    expect(ids(r.view(3))).toEqual(['m1', 'k5:continuation', 'k5:handoff']);
  });

  it('a marker without a record, and a record without its marker, change nothing and are reported', () => {
    const r = importRind({
      tools,
      compactions: [compaction('k6', 'llm_inline', 'h')],
      messages: [...before, marker('m6', 'k9'), asst('m7', 'x')],
    });
    expect(r.of('item').some((e) => e.item.derivation)).toBe(false);
    expect(ids(r.view(2))).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);
    expect(r.rules()).toEqual(expect.arrayContaining(['RIND_MARKER_WITHOUT_RECORD', 'HALF_WRITTEN_COMPACTION']));
    expect(r.rules()).not.toContain('RIND_COMPACTION_WITHOUT_MARKER');
    expect(r.diagnostics.find((d) => d.rule === 'HALF_WRITTEN_COMPACTION')).toMatchObject({
      severity: 'warning',
      message: expect.stringMatching(/^Compaction k6 \(llm_inline\) has no compact_boundary marker/),
    });
    expect(r.of('record').find((e) => e.type === 'compact_boundary')?.summary).toMatch(/k9: no valid compaction record/);
  });

  it('a record without a valid handoff is ignored with its marker; an invalid continuation falls back to the default text', () => {
    const r = importRind({
      tools,
      compactions: [
        compaction('k7', 'llm_inline', 'h', { handoff_message: { role: 'user', content: 'h' } }),
        compaction('k8', 'llm_inline', 'h2', { continuation_user_message: { role: 'assistant', content: 'no' } }),
      ],
      messages: [...before, marker('m6', 'k7'), marker('m7', 'k8')],
    });
    expect(r.rules()).toEqual(expect.arrayContaining(['RIND_INVALID_COMPACTION', 'RIND_MARKER_WITHOUT_RECORD']));
    expect(r.of('item').find((e) => e.item.id === 'k8:continuation')?.item.blocks).toEqual([
      { type: 'text', text: COMPACT_CONTINUATION_USER_CONTENT },
    ]);
  });

  it('a second marker for the same record applies again under a suffixed compaction id', () => {
    const r = importRind({
      tools,
      compactions: [compaction('k1', 'llm_inline', 'h')],
      messages: [...before, marker('m6', 'k1'), user('m7', 'x'), marker('m8', 'k1'), asst('m9', 'y')],
    });
    expect(r.of('compaction/start').map((e) => e.id)).toEqual(['k1', 'k1#2']);
    expect(ids(r.view(2))).toEqual(['m1', 'k1#2:continuation', 'k1#2:handoff']);
    expect(r.fates(2).find((f) => f.id === 'k1:handoff')?.fate).toEqual({
      fate: 'summarised',
      compactionId: 'k1#2',
      by: 'k1#2:continuation',
    });
  });

  it('compact ids are matched as Python str() of a truthy value', () => {
    const r = importRind({
      tools,
      compactions: [compaction('7', 'llm_inline', 'h'), { ...compaction('x', 'llm_inline', 'h'), id: 0 }],
      messages: [...before, marker('m6', 7), marker('m7', 0)],
    });
    expect(r.of('compaction/start').map((e) => e.id)).toEqual(['7']);
    expect(r.rules()).toEqual(expect.arrayContaining(['RIND_BAD_RECORD', 'RIND_MARKER_WITHOUT_RECORD']));
  });

  it('says when the record’s source range does not end at its marker', () => {
    const r = importRind({
      tools,
      compactions: [compaction('k1', 'llm_inline', 'h', { source: { message_start_index: 0, message_end_index_exclusive: 3 } })],
      messages: [...before, marker('m6', 'k1')],
    });
    expect(r.diagnostics.find((d) => d.rule === 'RIND_SOURCE_RANGE')?.severity).toBe('info');
  });

  it('without compactions.jsonl, markers are reported as unmatched', () => {
    const r = importRind({ tools, noCompactionFile: true, messages: [...before, marker('m6', 'k1')] });
    expect(r.diagnostics.find((d) => d.rule === 'RIND_MARKER_WITHOUT_RECORD')?.message).toMatch(/compactions\.jsonl was not read/);
  });
});
