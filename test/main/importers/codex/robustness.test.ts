import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CanonicalEvent } from '../../../../src/shared/model/event';
import { SAMPLES, call, complete, errors, ev, importValues, item, line, meta, readFixture, say, started, tokens, user } from './helpers';

describe('format health', () => {
  it('unknown record, item and event types are kept as unknown events and counted once per type', () => {
    const r = importValues([
      meta(),
      line('world_state', { a: 1 }),
      started(),
      user('hi'),
      item({ type: 'other' }),
      ev({ type: 'brand_new_event' }),
      line('world_state', { a: 2 }),
      ev({ type: 'brand_new_event' }),
      complete(),
    ]);
    expect(r.of('unknown').map((e) => [e.line, e.type])).toEqual([
      [2, 'world_state'],
      [5, 'response_item/other'],
      [6, 'event_msg/brand_new_event'],
      [7, 'world_state'],
      [8, 'event_msg/brand_new_event'],
    ]);
    const found = r.diagnostics.filter((d) => d.rule === 'UNKNOWN_RECORDS');
    expect(found.map((d) => [d.severity, d.line, d.seqs.length])).toEqual([
      ['warning', 2, 2],
      ['warning', 5, 1],
      ['warning', 6, 2],
    ]);
    expect(found[0]?.message).toMatch(/2 records of type "world_state"/);
    expect(found[1]?.message).toMatch(/the model view may be incomplete/);
  });

  it('a cli_version newer than the newest verified on the wire is a warning naming it; older and pre-releases are not', () => {
    const d = importValues([meta({ cli_version: '0.172.0' })]).diagnostics;
    expect(d.map((x) => [x.rule, x.severity, x.line])).toEqual([['CODEX_VERSION', 'warning', 1]]);
    expect(d[0]?.message).toContain('newer than 0.171.0, the newest Codex verified on the wire');
    expect(importValues([meta({ cli_version: '0.171.0' })]).diagnostics).toEqual([]);
    expect(importValues([meta({ cli_version: '0.128.0' })]).diagnostics).toEqual([]);
    expect(importValues([meta({ cli_version: '0.104.0-alpha.1' })]).diagnostics).toEqual([]);
    expect(importValues([meta({ cli_version: '0.45.0' })]).diagnostics).toEqual([]);
  });

  it('bad records are errors with their line, kept as records; the rest still loads', () => {
    const r = importValues([
      meta(),
      { timestamp: 'x', payload: {} },
      line('response_item', 'nope'),
      item({ type: 'message', role: 'user' }),
      item({ type: 'function_call', arguments: '{}' }),
      line('event_msg', { no: 'type' }),
      line('compacted', null),
      line('turn_context', 3),
      started(),
      user('still here'),
      say('ok'),
      tokens({ input: 5 }, 5),
      complete(),
    ]);
    expect(errors(r.diagnostics).map((d) => [d.rule, d.line])).toEqual([2, 3, 4, 5, 6, 7, 8].map((l) => ['CODEX_BAD_RECORD', l]));
    expect(errors(r.diagnostics)[2]?.message).toMatch(/Line 4: a message without a "content" array/);
    const lines = new Set(r.events.map((e) => e.line));
    for (let i = 1; i <= 13; i++) expect(lines.has(i), `line ${i}`).toBe(true);
    expect(r.of('item').map((e) => e.item.id)).toEqual(['L10', 'L11']);
    expect(r.of('response')).toHaveLength(1);
  });

  it('a rollout without session_meta gets a session named after the file, with a warning', () => {
    const r = importValues([started(), user('hi')], '/x/rollout-2026-01-01T00-00-00-019c8a70-dda7-7f33-98ea-f30553347322.jsonl');
    expect(r.events[0]).toMatchObject({ kind: 'session', id: '019c8a70-dda7-7f33-98ea-f30553347322', harness: 'codex' });
    expect(r.diagnostics.map((d) => [d.rule, d.line])).toEqual([['CODEX_NO_SESSION_META', 1]]);
  });

  it('the first rollout format (bare header and bare items) is read', () => {
    const r = importValues([
      { id: 'old-1', timestamp: '2025-04-20T10:00:00Z', instructions: 'Be brief.' },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
      { record_type: 'state' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'hello' }] },
    ]);
    expect(r.of('session')[0]).toMatchObject({ id: 'old-1' });
    // Its `instructions` are the user's, not the system prompt (Codex's built-in one, not logged).
    expect(r.of('header')[0]?.system).toBeNull();
    expect(r.of('item').map((e) => e.item.role)).toEqual(['user', 'assistant']);
    expect(r.of('request')).toHaveLength(1);
    expect(errors(r.diagnostics)).toEqual([]);
  });
});

/** Values to mutate lines with: wrong types, missing fields, nesting. */
const junk = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 8 }),
  fc.constantFrom('message', 'function_call', 'compaction', 'token_count', 'task_started', 'compacted', 'user', 'developer'),
  fc.array(fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.constant(null)), { maxLength: 3 }),
  fc.dictionary(
    fc.constantFrom('type', 'role', 'content', 'text', 'info', 'call_id', 'payload'),
    fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.constant(null)),
    { maxKeys: 3 },
  ),
);

/** Replace one field at some depth of a JSON value. */
function mutate(v: unknown, path: readonly number[], value: unknown): unknown {
  if (typeof v !== 'object' || v === null) return value;
  const keys = Array.isArray(v) ? v.map((_, i) => i) : Object.keys(v);
  if (keys.length === 0 || path.length === 0) return value;
  const k = keys[(path[0] as number) % keys.length] as string | number;
  if (Array.isArray(v)) {
    const copy: unknown[] = [...(v as unknown[])];
    copy[k as number] = mutate(copy[k as number], path.slice(1), value);
    return copy;
  }
  const copy: Record<string, unknown> = { ...(v as Record<string, unknown>) };
  copy[String(k)] = mutate(copy[String(k)], path.slice(1), value);
  return copy;
}

describe('mutated lines never throw', () => {
  const base = readFixture(SAMPLES.tools);
  const extra = [
    line('compacted', {
      message: 'm',
      replacement_history: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'x' }] },
        { type: 'compaction', encrypted_content: 'e' },
      ],
    }),
    line('compacted', { message: 'legacy summary' }),
    ev({ type: 'thread_rolled_back', num_turns: 2 }),
    call('cx'),
    ev({ type: 'turn_aborted', reason: 'interrupted' }),
  ];
  const lines = [...base, ...extra];

  it('any line mutated anywhere, in any order, imports without throwing and emits only valid events', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(lines.length - 1), fc.array(fc.nat(20), { maxLength: 4 }), junk), { minLength: 1, maxLength: 6 }),
        fc.array(fc.nat(lines.length - 1), { maxLength: 8 }),
        (mutations, order) => {
          const values = lines.map((l) => l as unknown);
          for (const [i, path, value] of mutations) values[i] = mutate(values[i], path, value);
          for (const i of order) values.push(values[i]);
          const objects = values.filter((v): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v));
          const r = importValues(objects);
          for (const e of r.events) {
            const { seq: _s, line: _l, ...body } = e;
            const parsed = CanonicalEvent.safeParse(body);
            if (!parsed.success) throw new Error(`line ${e.line}: ${JSON.stringify(parsed.error.issues[0])}`);
          }
          for (const d of r.diagnostics) expect(d.line === null || d.line >= 1).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});
