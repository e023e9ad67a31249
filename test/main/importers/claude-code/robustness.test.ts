import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { claudeCodeImporter } from '../../../../src/main/importers/claude-code';
import { compareVersions } from '../../../../src/shared/compat/newest';
import { CanonicalEvent, type LogEvent } from '../../../../src/shared/model/event';
import { listBranches } from '../../../../src/shared/replay/branches';
import { replay } from '../../../../src/shared/replay/fold';
import { modelView } from '../../../../src/shared/replay/view';
import { BIG, assistant, errors, importFiles, importValues, readFixture, text, user } from './helpers';

describe('claude-code: bad input gives diagnostics, not crashes', () => {
  it('a parent that is in no file: placed in file order, CC_MISSING_PARENT', () => {
    const r = importValues([
      user('u1', null, 'one'),
      assistant('a1', 'u1', 'msg_1', [text('1')]),
      user('u2', 'gone-1', 'two'),
      assistant('a2', 'u2', 'msg_2', [text('2')]),
      { type: 'progress', uuid: 'p1', parentUuid: 'gone-2', data: { type: 'hook_progress' } },
    ]);
    expect(r.branches()).toEqual(['main']);
    expect(r.view(1).items.map((i) => i.id)).toEqual(['u1', 'msg_1', 'u2']);
    const d = r.diag('CC_MISSING_PARENT');
    expect(d).toMatchObject({ severity: 'warning', line: 3, file: 'session.jsonl' });
    expect(d?.message).toMatch(/^2 records name a parentUuid that is in no file/);
    expect(errors(r.diagnostics)).toEqual([]);
  });

  it('a cycle of parent links (through a forward reference, or a record that is its own parent): CC_PARENT_CYCLE', () => {
    const r = importValues([
      user('x', 'y', 'x points at y, written later'),
      user('y', 'x', 'y points back at x'),
      user('z', 'z', 'z is its own parent'),
      assistant('a', 'z', 'msg_1', [text('ok')]),
    ]);
    const d = r.diag('CC_PARENT_CYCLE');
    expect(d).toMatchObject({ severity: 'warning', line: 1 });
    expect(d?.message).toMatch(/^2 records sit on a cycle/);
    expect(r.view(0).items.map((i) => i.id)).toEqual(['x', 'y', 'z']);
  });

  it('a parent written later without a cycle: CC_FORWARD_PARENT (information)', () => {
    const r = importValues([user('u1', null, 'one'), user('u2', 'u3', 'two'), user('u3', 'u1', 'three')]);
    expect(r.rules()).toEqual(['CC_FORWARD_PARENT']);
    expect(r.diag('CC_FORWARD_PARENT')?.severity).toBe('info');
  });

  it('duplicate uuids: the first record stands, later ones are records, CC_DUPLICATE_UUID', () => {
    const r = importValues([
      user('u1', null, 'one'),
      assistant('a1', 'u1', 'msg_1', [text('1')]),
      user('u1', 'a1', 'one again'),
      user('u2', 'u1', 'two'),
      assistant('a2', 'u2', 'msg_2', [text('2')]),
    ]);
    expect(r.of('record')).toEqual([expect.objectContaining({ type: 'user', summary: expect.stringMatching(/duplicate uuid u1/) })]);
    // u2 hangs off the first u1, which is no longer the head: a branch from it.
    expect(r.branches()).toEqual(['main', 'rewind-1']);
    expect(r.view(0, 'rewind-1').items.map((i) => i.id)).toEqual(['u1', 'u2']);
    expect(r.view(0, 'main').items.map((i) => i.id)).toEqual(['u1']);
    expect(r.diag('CC_DUPLICATE_UUID')).toMatchObject({ severity: 'warning', line: 3 });
    expect(r.diag('CC_DUPLICATE_UUID')?.message).toMatch(/first written at line 1/);
  });

  it('lines that are not records at all are unknown events, counted', () => {
    const r = importValues([{ hello: 'world' }, { type: 42 }, user('u1', null, 'hi'), { type: 'user', uuid: 'u2', parentUuid: 'u1' }]);
    expect(r.of('unknown').map((e) => e.type)).toEqual(['(no type)', '(no type)']);
    expect(r.diag('CC_BAD_RECORD')?.line).toBe(4);
    expect(errors(r.diagnostics)).toEqual([]);
  });
});

describe('claude-code: format health', () => {
  it('counts unknown record types per file (UNKNOWN_RECORDS with counts), keeping them as unknown events', () => {
    const r = importValues([
      user('u1', null, 'hi'),
      { type: 'telemetry-blob', uuid: 'x1', parentUuid: 'u1', sessionId: 's1' },
      { type: 'telemetry-blob', sessionId: 's1' },
      { type: 'system', subtype: 'quantum_state', uuid: 'x2', parentUuid: 'x1', sessionId: 's1' },
      assistant('a1', 'x2', 'msg_1', [text('ok')]),
    ]);
    expect(r.of('unknown').map((e) => e.type)).toEqual(['telemetry-blob', 'telemetry-blob', 'system/quantum_state']);
    const unknown = r.diagnostics.filter((d) => d.rule === 'UNKNOWN_RECORDS');
    expect(unknown.map((d) => [d.severity, d.line, d.seqs.length])).toEqual([
      ['warning', 2, 2],
      ['warning', 4, 1],
    ]);
    expect(unknown[0]?.message).toMatch(/^2 records of type "telemetry-blob"/);
    // Unknown records with uuids still link the DAG.
    expect(r.branches()).toEqual(['main']);
    expect(r.view(0).items.map((i) => i.id)).toEqual(['u1']);
  });

  it('lists unknown fields and content block types with counts (UNKNOWN_FIELDS)', () => {
    const r = importValues([
      { ...user('u1', null, [{ type: 'hologram', data: 'x' }, text('hi')]), moodRing: 'blue' },
      { ...user('u2', 'u1', 'again'), moodRing: 'red', sparkle: true },
    ]);
    const d = r.diag('UNKNOWN_FIELDS');
    expect(d?.severity).toBe('info');
    expect(d?.message).toContain('field "moodRing" ×2 (first at line 1)');
    expect(d?.message).toContain('field "sparkle" ×1 (first at line 2)');
    expect(d?.message).toContain('content block type "hologram" ×1');
    expect(r.view.length).toBe(2);
  });

  it('warns once per file about a version newer than 2.1.332', () => {
    const newer = (v: Record<string, unknown>) => ({ ...v, version: '2.2.0' });
    const r = importValues([newer(user('u1', null, 'hi')), newer(assistant('a1', 'u1', 'msg_1', [text('ok')]))]);
    expect(r.diagnostics.filter((d) => d.rule === 'CC_VERSION_NEWER')).toEqual([expect.objectContaining({ severity: 'warning', line: 1 })]);
    expect(r.diag('CC_VERSION_NEWER')?.message).toContain('newer than 2.1.332, the newest version verified on the wire');
    expect(importValues([{ ...user('u1', null, 'hi'), version: '2.1.332' }]).rules()).toEqual([]);
    expect(compareVersions('2.1.39', '2.1.332')).toBeLessThan(0);
    expect(compareVersions('2.10.0', '2.1.332')).toBeGreaterThan(0);
    expect(compareVersions('next', '2.1.332')).toBeNull();
  });

  it('the real samples use no record type, field or block type the importer does not know', () => {
    for (const f of ['short.jsonl', 'tool_heavy.jsonl', 'dag_compact_after_rewind_preserved.jsonl']) {
      const r = importValues(readFixture(f), f);
      expect(r.rules().filter((x) => x.startsWith('UNKNOWN'))).toEqual([]);
    }
    const r = importFiles([
      { path: `${BIG}.jsonl`, values: readFixture(`${BIG}.jsonl`) },
      { path: `${BIG}/subagents/agent-a2898e3.jsonl`, values: readFixture(`${BIG}/subagents/agent-a2898e3.jsonl`) },
      { path: `${BIG}/subagents/agent-acompact-e1f845.jsonl`, values: readFixture(`${BIG}/subagents/agent-acompact-e1f845.jsonl`) },
    ]);
    expect(r.rules().filter((x) => x.startsWith('UNKNOWN'))).toEqual([]);
  });
});

describe('claude-code: rehydrate', () => {
  it('rebuilds every event with full text from its source line, exactly as imported', () => {
    const values = readFixture(`${BIG}.jsonl`);
    const r = importValues(values);
    let items = 0;
    for (const e of r.events) {
      const { seq: _seq, line, file: _file, ...body } = e;
      const back = claudeCodeImporter.rehydrate(body, values[line - 1] as Record<string, unknown>);
      expect(back).toEqual(body);
      if (e.kind === 'item') items++;
    }
    expect(items).toBeGreaterThan(400);
  });

  it('returns null when the line no longer yields the item', () => {
    const r = importValues([user('u1', null, 'hi')]);
    const item = r.of('item')[0];
    expect(item).toBeDefined();
    expect(claudeCodeImporter.rehydrate(item as never, { type: 'progress', data: {} })).toBeNull();
  });
});

describe('claude-code: sniff', () => {
  it('claims Claude Code transcripts and not other formats', () => {
    for (const f of ['short.jsonl', 'tool_heavy.jsonl', 'dag_compact_after_rewind_preserved.jsonl', `${BIG}.jsonl`]) {
      expect(claudeCodeImporter.sniff(readFixture(f).slice(0, 16), f)).toBeGreaterThanOrEqual(0.9);
    }
    expect(claudeCodeImporter.sniff([{ kind: 'session', format: 'palimpsest', version: 1, id: 's' }], 'x.jsonl')).toBe(0);
    expect(
      claudeCodeImporter.sniff(
        [
          { type: 'session', version: 0, id: 'x', createdAt: 1 },
          { type: 'turn/start', data: {} },
        ],
        'session.jsonl',
      ),
    ).toBe(0);
    expect(claudeCodeImporter.sniff([{ timestamp: 't', type: 'session_meta', payload: {} }], 'rollout.jsonl')).toBe(0);
    expect(claudeCodeImporter.sniff([], 'x.jsonl')).toBe(0);
  });
});

// ---------------------------------------------------------------------------------------------

const SAMPLE = [
  ...readFixture('short.jsonl'),
  ...readFixture('dag_compact_after_rewind_preserved.jsonl'),
  ...readFixture('tool_heavy.jsonl').slice(0, 20),
];
const UUIDS = [...new Set(SAMPLE.flatMap((v) => [v.uuid, v.parentUuid]).filter((x): x is string => typeof x === 'string'))];

/** A real line with one of its fields replaced, removed, or re-pointed at another record. */
const mutated = fc
  .tuple(fc.nat(SAMPLE.length - 1), fc.nat(40), fc.oneof(fc.jsonValue(), fc.constantFrom(...UUIDS), fc.constant(undefined)), fc.nat(3))
  .map(([i, k, value, how]) => {
    const v = structuredClone(SAMPLE[i] as Record<string, unknown>);
    const target = how === 3 && typeof v.message === 'object' && v.message !== null ? (v.message as Record<string, unknown>) : v;
    const keys = [
      ...Object.keys(target),
      'parentUuid',
      'uuid',
      'logicalParentUuid',
      'compactMetadata',
      'microcompactMetadata',
      'isCompactSummary',
      'isSidechain',
      'content',
      'usage',
      'id',
    ];
    const key = keys[k % keys.length] as string;
    if (value === undefined) delete target[key];
    else target[key] = value;
    return v;
  });

const anyLine = fc.oneof(
  { weight: 3, arbitrary: mutated },
  {
    weight: 1,
    arbitrary: fc.dictionary(
      fc.constantFrom(
        'type',
        'uuid',
        'parentUuid',
        'message',
        'subtype',
        'data',
        'agentId',
        'isSidechain',
        'isMeta',
        'compactMetadata',
        'version',
      ),
      fc.jsonValue(),
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom(...SAMPLE) },
);

describe('claude-code: property', () => {
  it('random and mutated lines never make the importer throw; every event is canonical and every branch replays', () => {
    fc.assert(
      fc.property(fc.array(anyLine, { maxLength: 40 }), fc.array(anyLine, { maxLength: 10 }), (main, sub) => {
        const r = importFiles([
          { path: '/p/s.jsonl', values: main },
          { path: '/p/s/subagents/agent-acompact-1.jsonl', values: sub },
        ]);
        expect(r.rules()).not.toContain('CC_IMPORT_FAILED');
        for (const e of r.events) {
          const { seq: _s, line: _l, file: _f, ...body } = e;
          const parsed = CanonicalEvent.safeParse(body);
          if (!parsed.success) throw new Error(`${JSON.stringify(body).slice(0, 300)}: ${parsed.error.message}`);
        }
        const log = r.events as unknown as LogEvent[];
        for (const b of listBranches(log)) {
          const st = replay(log, { branch: b.name });
          for (let i = 0; i < st.requests.length; i++) expect(modelView(st, i)).not.toBeNull();
          expect(st.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
        }
      }),
      { numRuns: 300 },
    );
  });
});
