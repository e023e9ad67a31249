import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dshImporter } from '../../../../src/main/importers/dsh';
import { KNOWN_AT_B150A551 } from '../../../../src/main/importers/dsh/known-types';
import { errors, importValues } from './helpers';

const head = { type: 'session', version: 0, id: 's', createdAt: 1, delegationDepth: 0 };

describe('bad and unknown input', () => {
  it('another format version is an error, and the log is still read', () => {
    const r = importValues([
      { ...head, version: 3 },
      { type: 'turn/start', data: { turn: 1 } },
    ]);
    expect(errors(r.diagnostics).map((d) => [d.rule, d.line])).toEqual([['DSH_VERSION', 1]]);
    expect(r.events.map((e) => e.kind)).toEqual(['session', 'lifecycle']);
  });

  it('all 48 types of the b150a551 catalog are known: none becomes an unknown event', () => {
    expect(new Set(KNOWN_AT_B150A551).size).toBe(48);
    const r = importValues([head, ...KNOWN_AT_B150A551.map((type) => ({ type, data: {} }))]);
    expect(r.of('unknown')).toEqual([]);
    expect(r.diagnostics.filter((d) => d.rule === 'UNKNOWN_RECORDS')).toEqual([]);
  });

  it('unknown types become unknown events, counted once per type, with a warning about the view', () => {
    const r = importValues([
      head,
      { type: 'image/offload', data: { targets: [{ seq: 0, imageIndexes: [0] }] } },
      { type: 'future/thing', data: {}, ignorable: true },
      { type: 'image/offload', data: { targets: [] } },
      { type: 'future/thing', data: {}, ignorable: true },
    ]);
    expect(r.of('unknown').map((e) => e.type)).toEqual(['image/offload', 'future/thing', 'image/offload', 'future/thing']);
    const found = r.diagnostics.filter((d) => d.rule === 'UNKNOWN_RECORDS');
    expect(found.map((d) => [d.severity, d.line, d.seqs])).toEqual([
      ['warning', 2, [1, 3]],
      ['warning', 3, [2, 4]],
    ]);
    expect(found[0]?.message).toMatch(/2 records of type "image\/offload".*may be incomplete/);
    expect(found[1]?.message).toMatch(/All are marked ignorable/);
  });

  it('records with missing fields are reported with their line and kept', () => {
    const r = importValues([
      head,
      { type: 'user/message', data: { role: 'user' }, surfaceOp: 'append' },
      { type: 'compaction/start', data: {} },
      { type: 'todo/write', data: { todos: [{ content: 1 }] } },
      { type: 'assistant/chunk', data: { turn: 1, step: 1 } },
      { type: 'request/header', data: {} },
      { data: { turn: 1 } },
      { type: 'tool-call-chunks', data: { turn: 1, step: 1, index: 0, dt: [], args: 'nope' } },
      { type: 'turn/start' },
      { type: 'turn/end', data: { turn: 1, reason: { kind: 'completed' } } },
    ]);
    const bad = r.diagnostics.filter((d) => d.rule === 'DSH_BAD_RECORD');
    expect(bad.map((d) => [d.severity, d.line])).toEqual([2, 3, 4, 5, 6, 7, 8, 9].map((l) => ['error', l]));
    // Nothing is lost: every line left an event.
    expect(new Set(r.events.map((e) => e.line))).toEqual(new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]));
    expect(r.events.find((e) => e.line === 7)).toMatchObject({ kind: 'unknown', type: '(no type)' });
    expect(r.of('record').find((e) => e.type === 'user/message')?.summary).toMatch(/malformed/);
  });

  it('odd content blocks are kept as opaque and reported as warnings', () => {
    const r = importValues([
      head,
      {
        type: 'user/message',
        data: {
          role: 'user',
          content: [
            { type: 'text', text: 'a' },
            { type: 'video', url: 'x' },
            { type: 'image', attachment: { mediaType: 'image/png', bytes: 12 } },
          ],
          source: { kind: 'user' },
        },
        surfaceOp: 'append',
      },
    ]);
    expect(r.of('item')[0]?.item.blocks).toEqual([
      { type: 'text', text: 'a' },
      { type: 'opaque', label: 'dsh:video', chars: 26 },
      { type: 'image', mediaType: 'image/png', bytes: 12 },
    ]);
    expect(r.diagnostics.map((d) => [d.rule, d.severity])).toEqual([['DSH_BAD_CONTENT', 'warning']]);
  });

  it('references to seqs and surface nodes the file lacks are warned about', () => {
    const r = importValues([
      head,
      {
        type: 'user/message',
        data: { role: 'user', content: [], source: { kind: 'plugin', plugin: 'compact', compactionId: 'c' } },
        sourceEventSeqs: [7],
        surfaceOp: { op: 'replace', start: 3, end: 4 },
      },
    ]);
    expect(r.diagnostics.map((d) => d.rule).sort()).toEqual(['DSH_BAD_REF', 'DSH_BAD_REF', 'DSH_COMPACTION_ORPHAN']);
    expect(r.of('item')[0]).toMatchObject({ op: { op: 'replace', from: 'dsh:3', to: 'dsh:4' }, sources: [] });
  });

  it('a surface event without surfaceOp stays off the surface; system/message is a system item', () => {
    const r = importValues([
      head,
      {
        type: 'system/message',
        data: {
          role: 'system',
          content: [{ type: 'text', text: 'You are…' }],
          source: { kind: 'plugin', plugin: '@deepseek-ai/dsh-system-prompt' },
        },
        surfaceOp: 'append',
      },
      { type: 'user/message', data: { role: 'user', content: [{ type: 'text', text: 'x' }], source: { kind: 'user' } } },
      { type: 'request/header', data: { header: { config: { provider: 'p', model: 'm' } }, reason: 'initial' } },
    ]);
    expect(errors(r.diagnostics)).toEqual([]);
    expect(r.of('item').map((e) => [e.item.role, e.op.op])).toEqual([
      ['system', 'append'],
      ['user', 'log'],
    ]);
    // A header without system says nothing about it; without tools it is a tool-less request.
    const h = r.of('header')[0];
    expect(h && 'system' in h).toBe(false);
    expect(h?.tools).toEqual([]);
  });

  it('headless stream-json output without a header is read, its session named by the wrapper', () => {
    const r = importValues([
      { type: 'session_event', sessionId: 'abc', event: { type: 'turn/start', seq: 0, time: 5, data: { turn: 1 } } },
      {
        type: 'session_event',
        sessionId: 'abc',
        event: { type: 'turn/end', seq: 1, time: 6, data: { turn: 1, reason: { kind: 'completed' } } },
      },
      { type: 'result', sessionId: 'abc', output: 'done', usage: {} },
    ]);
    expect(r.diagnostics).toEqual([]);
    expect(r.events.map((e) => [e.kind, e.kind === 'record' ? e.type : e.kind === 'lifecycle' ? `${e.boundary} ${e.turn}` : null])).toEqual(
      [
        ['session', null],
        ['lifecycle', 'turn-start 1'],
        ['lifecycle', 'turn-end 1'],
        ['record', 'stream-json/result'],
      ],
    );
  });

  it('never throws, whatever the lines hold', () => {
    const value = fc.oneof(
      fc.dictionary(fc.string(), fc.jsonValue()),
      fc.record(
        {
          type: fc.constantFrom(
            'session',
            'user/message',
            'assistant/chunk',
            'tool/result',
            'compaction/summary',
            'compaction/end',
            'text-chunks',
            'tool-call-chunks',
            'request/header',
            'todo/write',
            'session_event',
            'x/y',
          ),
          seq: fc.option(fc.integer({ min: -2, max: 50 }), { nil: undefined }),
          data: fc.jsonValue(),
          event: fc.jsonValue(),
          surfaceOp: fc.jsonValue(),
          sourceEventSeqs: fc.jsonValue(),
        },
        { requiredKeys: ['type'] },
      ),
    ) as fc.Arbitrary<Record<string, unknown>>;
    fc.assert(
      fc.property(fc.array(value, { maxLength: 30 }), (values) => {
        const r = importValues(values);
        for (const v of values) void dshImporter.rehydrate({ kind: 'record', type: 'x' }, v);
        // Every line leaves at least one event.
        return new Set(r.events.map((e) => e.line)).size === values.length;
      }),
      { numRuns: 300 },
    );
  });
});

describe('sniff', () => {
  it('says no to other formats', () => {
    expect(dshImporter.sniff([], 'x.jsonl')).toBe(0);
    expect(dshImporter.sniff([{ kind: 'session', format: 'palimpsest', version: 1, id: 'x' }], 'x.jsonl')).toBe(0);
    expect(
      dshImporter.sniff(
        [
          { type: 'user', message: { role: 'user', content: 'hi' }, uuid: 'u' },
          { type: 'assistant', message: {} },
        ],
        'a.jsonl',
      ),
    ).toBe(0);
    expect(
      dshImporter.sniff(
        [
          { type: 'session_meta', payload: {} },
          { type: 'response_item', payload: {} },
        ],
        'rollout.jsonl',
      ),
    ).toBe(0);
  });

  it('says yes to a header, and to headerless event lines', () => {
    expect(dshImporter.sniff([head], 'session.jsonl')).toBeGreaterThanOrEqual(0.9);
    expect(
      dshImporter.sniff(
        [
          { type: 'turn/start', data: { turn: 1 } },
          { type: 'step/start', data: { turn: 1, step: 1 } },
        ],
        'x.jsonl',
      ),
    ).toBeGreaterThanOrEqual(0.8);
  });
});
