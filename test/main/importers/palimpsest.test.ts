import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fastEvent, palimpsestImporter } from '../../../src/main/importers/palimpsest';
import type { ImportSink } from '../../../src/main/importers/types';
import type { JsonLine } from '../../../src/main/reader/types';
import type { Diagnostic } from '../../../src/shared/model/diagnostic';
import { CanonicalEvent, EVENT_KINDS, type EventBody, type EventOf } from '../../../src/shared/model/event';

const DIR = join(__dirname, '..', '..', '..', 'fixtures', 'palimpsest');
const FIXTURES = readdirSync(DIR)
  .filter((f) => f.endsWith('.jsonl'))
  .sort();
/** The fixtures scripts/gen-fixtures.ts writes (others may add files to the folder). */
const GENERATED = [
  'basic.jsonl',
  'branches.jsonl',
  'compaction-lifecycle.jsonl',
  'lifecycle.jsonl',
  'mapreduce.jsonl',
  'pruning-masking.jsonl',
  'remote-compaction.jsonl',
  'rind-handoff.jsonl',
  'unknown-kinds.jsonl',
];

/** JSONL text → JsonLine objects, as the reader makes them: 1-based lines, byte offsets, blank lines skipped. */
function jsonLines(text: string): JsonLine[] {
  const out: JsonLine[] = [];
  let offset = 0;
  text.split('\n').forEach((raw, i) => {
    const length = Buffer.byteLength(raw);
    if (raw.trim() !== '') out.push({ value: JSON.parse(raw) as Record<string, unknown>, line: i + 1, offset, length });
    offset += length + 1;
  });
  return out;
}

interface Emitted {
  readonly seq: number;
  readonly event: EventBody;
  readonly from: JsonLine;
}

type Found = Omit<Diagnostic, 'file'> & { file?: string | null };

/**
 * A fake sink that collects events and diagnostics; seqs start at `base`. `setSeqs`: each event's
 * seq is set in place, as the log does.
 */
function importText(text: string, base = 0, setSeqs = false): { events: Emitted[]; diagnostics: Found[] } {
  const events: Emitted[] = [];
  const diagnostics: Found[] = [];
  const sink: ImportSink = {
    emit(event, from) {
      const seq = base + events.length;
      if (setSeqs) (event as { seq?: number }).seq = seq;
      events.push({ seq, event, from });
      return seq;
    },
    diagnostic(d) {
      diagnostics.push(d);
    },
    get nextSeq() {
      return base + events.length;
    },
  };
  const file = palimpsestImporter.open({ path: 'test.jsonl', index: 0 }, sink);
  for (const l of jsonLines(text)) file.line(l);
  file.end();
  return { events, diagnostics };
}

const read = (name: string): string => readFileSync(join(DIR, name), 'utf8');
const imported = new Map(FIXTURES.map((name) => [name, importText(read(name))]));
const all = (): { name: string; event: EventBody }[] =>
  [...imported].flatMap(([name, r]) => r.events.map((e) => ({ name, event: e.event })));
const of = <K extends EventBody['kind']>(kind: K): EventOf<K>[] =>
  all()
    .map((x) => x.event)
    .filter((e): e is EventOf<K> => e.kind === kind);

const session = (extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ kind: 'session', format: 'palimpsest', version: 1, id: 's', ...extra });
const userLine = (id: string, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ kind: 'item', item: { id, role: 'user', blocks: [{ type: 'text', text: `hello ${id}` }] }, ...extra });

describe('palimpsest fixtures', () => {
  it('exist', () => {
    for (const name of GENERATED) expect(FIXTURES).toContain(name);
  });

  it.each(FIXTURES)('%s imports with no error diagnostics, one event a line', (name) => {
    const text = read(name);
    const r = imported.get(name);
    expect(r).toBeDefined();
    if (!r) return;
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(r.events).toHaveLength(jsonLines(text).length);
    expect(r.events.map((e) => e.seq)).toEqual(r.events.map((_, i) => i));
    expect(r.events[0]?.event.kind).toBe('session');
    const first = jsonLines(text)
      .slice(0, 8)
      .map((l) => l.value);
    expect(palimpsestImporter.sniff(first, join(DIR, name))).toBe(1);
  });

  it('of the generated fixtures, only unknown-kinds.jsonl has warnings, and only about unknown kinds', () => {
    for (const name of GENERATED) {
      const ds = imported.get(name)?.diagnostics;
      if (name === 'unknown-kinds.jsonl') expect(new Set(ds?.map((d) => d.rule))).toEqual(new Set(['UNKNOWN_RECORDS']));
      else expect(ds, name).toEqual([]);
    }
  });

  it('every event kind of format v1 appears in at least one fixture', () => {
    const seen = new Set(all().map((x) => x.event.kind));
    const missing = EVENT_KINDS.filter((k) => !seen.has(k));
    expect(missing).toEqual([]);
    // …and written as such, not only produced from unrecognised lines.
    const written = new Set(FIXTURES.flatMap((n) => jsonLines(read(n)).map((l) => String(l.value.kind))));
    expect(EVENT_KINDS.filter((k) => !written.has(k))).toEqual([]);
  });

  it('cover every concept of docs/format.md section 2', () => {
    const items = of('item');
    const blocks = items.flatMap((e) => e.item.blocks);
    const leaves = blocks.flatMap((b) => (b.type === 'tool_result' ? b.content : [b]));
    const derivations = items.flatMap((e) => (e.item.derivation ? [e.item.derivation] : []));
    const headers = of('header');
    const responses = of('response');
    const starts = of('compaction/start');
    const ends = of('compaction/end');
    const masks = of('mask');
    const stagings = of('mapreduce/staging');
    const summaries = of('compaction/summary');
    const concepts: Record<string, boolean> = {
      'user, assistant, tool and system items': ['user', 'assistant', 'tool', 'system'].every((r) => items.some((e) => e.item.role === r)),
      'meta item': items.some((e) => e.item.meta === true),
      'every block type': ['text', 'reasoning', 'image', 'opaque', 'tool_call', 'tool_result'].every(
        (t) => blocks.some((b) => b.type === t) || leaves.some((b) => b.type === t),
      ),
      'redacted reasoning': blocks.some((b) => b.type === 'reasoning' && b.redacted === true),
      'tool call and its result': items.some((e) =>
        e.item.blocks.some(
          (b) => b.type === 'tool_call' && items.some((r) => r.item.blocks.some((x) => x.type === 'tool_result' && x.callId === b.id)),
        ),
      ),
      'error tool result': blocks.some((b) => b.type === 'tool_result' && b.isError === true),
      'header with system, tools and full route': headers.some(
        (h) =>
          Array.isArray(h.system) &&
          h.system.length > 0 &&
          Array.isArray(h.tools) &&
          h.tools.length > 0 &&
          h.route?.provider !== undefined &&
          h.route.model !== undefined &&
          h.route.window !== undefined &&
          h.route.maxOutput !== undefined,
      ),
      'header with system null (not recorded)': headers.some((h) => h.system === null),
      'header with system [] (system prompt is an item)': headers.some((h) => Array.isArray(h.system) && h.system.length === 0),
      'header changing the route only': headers.some((h) => h.system === undefined && h.tools === undefined && h.route !== undefined),
      'usage with cache reads and writes': responses.some((r) => r.usage?.cacheRead !== undefined && r.usage.cacheWrite !== undefined),
      'usage with reasoning and context': responses.some((r) => r.usage?.reasoning !== undefined && r.usage.context !== undefined),
      'raw finish reason differing from the normalised one': responses.some(
        (r) => r.finish !== undefined && r.finish.raw !== r.finish.reason,
      ),
      'response with an error': responses.some((r) => r.error !== undefined),
      'every surface op': ['append', 'replace', 'insert', 'extend', 'log'].every((op) => items.some((e) => e.op.op === op)),
      'mask by the model with a recorded reference': masks.some((m) => m.by === 'model' && m.reference !== undefined),
      'mask by the model without a reference': masks.some((m) => m.by === 'model' && m.reference === undefined),
      'mask by the harness': masks.some((m) => m.by === 'harness'),
      'drop and restore': of('drop').length > 0 && of('restore').length > 0,
      'todo bound to an item boundary': of('todo').some((t) => typeof t.after === 'string'),
      'completed plan kept': of('todo').some((t) => t.todos.length > 0 && t.todos.every((x) => x.status === 'completed')),
      'pruned derivation (head, tail, omitted)': derivations.some((d) => d.kind === 'pruned' && d.head > 0 && d.tail > 0 && d.omitted > 0),
      'pruned in characters and in code points': ['chars', 'codepoints'].every((u) =>
        derivations.some((d) => d.kind === 'pruned' && d.unit === u),
      ),
      'checkpoint with provenance': items.some((e) => e.item.derivation?.kind === 'checkpoint' && (e.sources?.length ?? 0) > 2),
      'handoff pair (continuation + handoff)': ['continuation', 'handoff'].every((p) =>
        derivations.some((d) => d.kind === 'checkpoint' && d.part === p),
      ),
      'reinjected item': derivations.some((d) => d.kind === 'reinjected'),
      'truncation marker': derivations.some((d) => d.kind === 'marker'),
      'every compaction trigger kind the systems we follow use': ['auto', 'manual', 'preemptive', 'overflow'].every((t) =>
        starts.some((s) => s.trigger === t),
      ),
      'policy with window, trigger, raw tail, output reserve and headroom': starts.some(
        (s) =>
          s.policy?.window !== undefined &&
          s.policy.triggerRatio !== undefined &&
          s.policy.rawTailTokens !== undefined &&
          s.policy.outputReserve !== undefined &&
          s.policy.headroom !== undefined,
      ),
      'strategy recorded': starts.every((s) => s.strategy !== undefined),
      'every outcome': ['committed', 'rejected', 'failed', 'fallback', 'cancelled'].every((o) => ends.some((e) => e.outcome === o)),
      'fallback with a marker': ends.some((e) => e.fallback?.marker === true),
      'fallback without a marker': ends.some((e) => e.fallback?.marker === false),
      'rejected for finish reason length': of('compaction/summary-error').some((e) => e.finish?.reason === 'length'),
      'summary with route, finish, usage and request': summaries.some(
        (s) => s.route !== undefined && s.finish !== undefined && s.usage !== undefined && s.request !== undefined,
      ),
      'opaque (encrypted) summary': summaries.some((s) => s.summary.some((b) => b.type === 'opaque')),
      'unfinished compaction bracket': starts.some((s) => !ends.some((e) => e.id === s.id)),
      'summarizer request with input items and instruction': of('request').some(
        (r) => r.purpose === 'compaction' && r.input !== undefined && Array.isArray(r.input.instruction),
      ),
      'summarizer instruction not recorded (null)': of('request').some((r) => r.input?.instruction === null),
      'map requests': of('request').some((r) => r.purpose === 'map'),
      'staging version 3 and legacy version 1': stagings.some((s) => s.version === 3) && stagings.some((s) => s.version === 1),
      'accepted and failed maps': ['accepted', 'failed'].every((st) => of('mapreduce/map').some((m) => m.status === st)),
      'reductions at two levels, one final':
        new Set(of('mapreduce/reduce').map((r) => r.level)).size >= 2 && of('mapreduce/reduce').some((r) => r.final === true),
      'audit fail then pass': ['fail', 'pass'].every((v) => of('mapreduce/audit').some((a) => a.verdict === v)),
      'fork, revert and rollback on named branches':
        of('fork').some((e) => e.parent.branch === 'main') && of('revert').length > 0 && of('rollback').length > 0,
      'every lifecycle boundary': ['end-seed', 'process-start', 'resume'].every((b) => of('lifecycle').some((e) => e.boundary === b)),
      'forked session with a parent': of('session').some((s) => s.parent !== undefined),
      'times as ISO strings and as epoch ms':
        all().some((x) => typeof x.event.at === 'string') && all().some((x) => typeof x.event.at === 'number'),
    };
    const missing = Object.entries(concepts)
      .filter(([, ok]) => !ok)
      .map(([name]) => name);
    expect(missing).toEqual([]);
  });

  it('staging segments are whole, known items and every segment of a staging is disjoint', () => {
    for (const [name, r] of imported) {
      const ids = new Set(r.events.flatMap((e) => (e.event.kind === 'item' ? [e.event.item.id] : [])));
      for (const { event } of r.events) {
        if (event.kind !== 'mapreduce/staging' && event.kind !== 'mapreduce/repartition') continue;
        const seen = new Set<string>();
        for (const s of event.segments) {
          for (const id of s.items) {
            expect(ids.has(id), `${name}: ${id}`).toBe(true);
            expect(seen.has(id), `${name}: ${id} twice`).toBe(false);
            seen.add(id);
          }
        }
      }
    }
  });

  it('references (sources, fork, revert, rollback) point at earlier events of the file', () => {
    for (const [name, r] of imported) {
      for (const { seq, event } of r.events) {
        const refs =
          event.kind === 'item'
            ? (event.sources ?? [])
            : event.kind === 'fork'
              ? [event.parent.seq]
              : event.kind === 'revert' || event.kind === 'rollback'
                ? [event.target.seq]
                : [];
        for (const s of refs) expect(s < seq && s >= 0, `${name} seq ${seq} → ${s}`).toBe(true);
      }
    }
  });
});

describe('palimpsest importer', () => {
  it('reports a malformed event with its line, and keeps it as an unknown event', () => {
    const bad = JSON.stringify({
      kind: 'item',
      branch: 'main',
      at: 5,
      item: { id: 'u2', role: 'user', blocks: [{ type: 'text', text: 42 }] },
    });
    const text = [session(), userLine('u1'), bad, userLine('u3')].join('\n');
    const r = importText(text);
    expect(r.events).toHaveLength(4);
    expect(r.events[2]?.event).toEqual({ kind: 'unknown', type: 'item', branch: 'main', at: 5 });
    expect(r.events[3]?.event.kind).toBe('item');
    const d = r.diagnostics.filter((x) => x.rule === 'PALIMPSEST_BAD_EVENT');
    expect(d).toHaveLength(1);
    expect(d[0]).toMatchObject({ severity: 'error', line: 3, seqs: [2] });
    expect(d[0]?.message).toContain('Line 3');
    expect(d[0]?.message).toContain('item.blocks[0].text');
    expect(d[0]?.message).toMatch(/expected string/i);
  });

  it('reports a line without a kind, and one whose kind is not a string', () => {
    const text = [session(), JSON.stringify({ item: {} }), JSON.stringify({ kind: 7 })].join('\n');
    const r = importText(text);
    expect(r.events.map((e) => e.event)).toEqual([
      expect.objectContaining({ kind: 'session' }),
      { kind: 'unknown', type: '?' },
      { kind: 'unknown', type: '7' },
    ]);
    const d = r.diagnostics.filter((x) => x.rule === 'PALIMPSEST_BAD_EVENT');
    expect(d.map((x) => x.line)).toEqual([2, 3]);
    expect(d[0]?.message).toContain('no "kind"');
    expect(d[1]?.message).toContain('"kind" must be a string');
  });

  it('keeps lines of unknown kinds and counts them per kind, reporting the first line', () => {
    const r = imported.get('unknown-kinds.jsonl');
    expect(r).toBeDefined();
    if (!r) return;
    const byKind = new Map(r.diagnostics.map((d) => [/"([^"]+)"/.exec(d.message)?.[1], d]));
    expect([...byKind.keys()].sort()).toEqual(['acme/telemetry', 'turn/end', 'turn/start']);
    expect(byKind.get('turn/start')).toMatchObject({ rule: 'UNKNOWN_RECORDS', severity: 'warning', line: 3 });
    expect(byKind.get('turn/start')?.message).toMatch(/^2 lines/);
    expect(byKind.get('acme/telemetry')?.message).toMatch(/^1 line /);
    const unknown = r.events.filter((e) => e.event.kind === 'unknown');
    expect(unknown.map((e) => (e.event.kind === 'unknown' ? e.event.type : ''))).toEqual([
      'turn/start',
      'acme/telemetry',
      'assistant/chunk',
      'turn/end',
      'turn/start',
      'turn/end',
    ]);
    // Each counted line is cited by its seq.
    expect(byKind.get('turn/start')?.seqs).toEqual(
      unknown.filter((e) => e.event.kind === 'unknown' && e.event.type === 'turn/start').map((e) => e.seq),
    );
    // The converter's own `unknown` line is a valid v1 event: no diagnostic of its own.
    expect(r.diagnostics.some((d) => d.message.includes('assistant/chunk'))).toBe(false);
  });

  it('warns about a session version other than 1 and reads the rest', () => {
    const r = importText([session({ version: 2, title: 'future' }), userLine('u1')].join('\n'));
    expect(r.events[0]?.event).toMatchObject({ kind: 'session', id: 's', title: 'future' });
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]).toMatchObject({ rule: 'PALIMPSEST_VERSION', severity: 'warning', line: 1 });
  });

  it('warns when the first line is not a session event', () => {
    const r = importText(userLine('u1'));
    expect(r.diagnostics.map((d) => d.rule)).toEqual(['PALIMPSEST_NO_SESSION']);
    expect(r.events[0]?.event.kind).toBe('item');
  });

  it('accepts contiguous explicit seqs silently and warns once about others, mapping references', () => {
    const ok = importText([session({ seq: 0 }), userLine('u1', { seq: 1 }), userLine('u2', { seq: 2 })].join('\n'));
    expect(ok.diagnostics).toEqual([]);

    // Written seqs 0, 10, 11, 12: line order wins, and a source citing 10 means the line that says 10.
    const text = [
      session({ seq: 0 }),
      userLine('u1', { seq: 10 }),
      userLine('u2', { seq: 11 }),
      JSON.stringify({
        kind: 'item',
        seq: 12,
        item: { id: 'p', role: 'tool', blocks: [], derivation: { kind: 'pruned', of: 'u1', head: 1, tail: 1, omitted: 3 } },
        op: { op: 'replace', from: 'u1', to: 'u1' },
        sources: [10],
      }),
      JSON.stringify({ kind: 'fork', branch: 'b', parent: { branch: 'main', seq: 11 } }),
    ].join('\n');
    const r = importText(text);
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]).toMatchObject({ rule: 'PALIMPSEST_SEQ', severity: 'warning', line: 2, seqs: [1] });
    expect(r.diagnostics[0]?.message).toMatch(/^3 lines/);
    const p = r.events[3]?.event;
    expect(p?.kind === 'item' && p.sources).toEqual([1]);
    expect(p?.seq).toBe(3);
    const fork = r.events[4]?.event;
    expect(fork?.kind === 'fork' && fork.parent).toEqual({ branch: 'main', seq: 2 });
  });

  it('takes lines without seqs as they come when the file does not start at seq 0 of the log', () => {
    // The event of such a line may be the line's own object, whose seq the log then sets: the seq
    // the line wrote (none) is read before.
    const text = [
      session(),
      userLine('u1'),
      JSON.stringify({ kind: 'request', id: 'r1', purpose: 'agent' }),
      JSON.stringify({ kind: 'response', request: 'r1' }),
      userLine('u2'),
    ].join('\n');
    const r = importText(text, 100, true);
    expect(r.diagnostics).toEqual([]);
    expect(r.events.map((e) => e.event.seq)).toEqual([100, 101, 102, 103, 104]);
  });

  it('maps references when the file does not start at seq 0 of the log', () => {
    const text = read('branches.jsonl');
    const r = importText(text, 100);
    expect(r.diagnostics).toEqual([]);
    const base = imported.get('branches.jsonl');
    const fork = r.events.find((e) => e.event.kind === 'fork')?.event;
    const fork0 = base?.events.find((e) => e.event.kind === 'fork')?.event;
    expect(fork?.kind === 'fork' && fork0?.kind === 'fork' && fork.parent.seq - fork0.parent.seq).toBe(100);
  });

  it('sniffs the format marker with certainty, bare canonical kinds with less, others not at all', () => {
    const lines = (t: string): Record<string, unknown>[] => jsonLines(t).map((l) => l.value);
    expect(palimpsestImporter.sniff(lines([session(), userLine('u1')].join('\n')), 'x.jsonl')).toBe(1);
    const noMarker = palimpsestImporter.sniff(lines([JSON.stringify({ kind: 'session', id: 's' }), userLine('u1')].join('\n')), 'x.jsonl');
    expect(noMarker).toBeGreaterThan(0.5);
    expect(noMarker).toBeLessThan(1);
    const bare = palimpsestImporter.sniff(
      lines([userLine('u1'), JSON.stringify({ kind: 'request', id: 'r' }), JSON.stringify({ other: 1 })].join('\n')),
      'x.jsonl',
    );
    expect(bare).toBeGreaterThan(0);
    expect(bare).toBeLessThan(noMarker);
    expect(palimpsestImporter.sniff(lines('{"type":"user","uuid":"x"}\n{"type":"assistant"}'), 'x.jsonl')).toBe(0);
    expect(palimpsestImporter.sniff([], 'x.jsonl')).toBe(0);
  });

  it('rehydrates an event from its line, and refuses a line that no longer yields it', () => {
    const r = imported.get('basic.jsonl');
    const lines = jsonLines(read('basic.jsonl'));
    expect(r).toBeDefined();
    if (!r) return;
    for (const e of r.events) {
      const line = lines[e.seq];
      expect(line).toBeDefined();
      if (!line) continue;
      expect(palimpsestImporter.rehydrate(e.event, line.value)).toStrictEqual(e.event);
    }
    const item = r.events.find((e) => e.event.kind === 'item')?.event;
    expect(item).toBeDefined();
    if (!item) return;
    expect(
      palimpsestImporter.rehydrate(item, JSON.parse(userLine('other').replace('"item"', '"request"')) as Record<string, unknown>),
    ).toBeNull();
    expect(palimpsestImporter.rehydrate(item, { kind: 'item', item: { id: 'x' } })).toBeNull();
  });

  it('rehydrate keeps the seq references mapped at import', () => {
    const r = importText(read('basic.jsonl'), 50);
    const k1 = r.events.find((e) => e.event.kind === 'item' && e.event.item.id === 'k1');
    expect(k1).toBeDefined();
    if (!k1) return;
    // The line as the file has it: the one imported may have become its event.
    const line = jsonLines(read('basic.jsonl')).find((l) => l.line === k1.from.line);
    expect(line).toBeDefined();
    if (!line) return;
    const again = palimpsestImporter.rehydrate(k1.event, line.value);
    expect(again).toStrictEqual(k1.event);
    expect(again?.kind === 'item' && again.sources?.every((s) => s >= 50)).toBe(true);
  });
});

describe('fast structural check', () => {
  /** Every variant of `v` with one value changed, removed or one key added, at any depth. */
  function mutations(v: unknown): unknown[] {
    const out: unknown[] = [];
    const wrong: unknown[] = [null, -1, 1.5, 0, 2 ** 60, 'x', '', true, [], {}];
    const walk = (node: unknown, rebuild: (x: unknown) => unknown): void => {
      if (Array.isArray(node)) {
        node.forEach((child, i) => walk(child, (x) => rebuild(node.map((c, j) => (j === i ? x : c)))));
        out.push(rebuild([...node, 'extra']));
        return;
      }
      if (node !== null && typeof node === 'object') {
        const o = node as Record<string, unknown>;
        for (const k of Object.keys(o)) {
          walk(o[k], (x) => rebuild({ ...o, [k]: x }));
          const { [k]: _gone, ...rest } = o;
          out.push(rebuild(rest));
        }
        out.push(rebuild({ ...o, zz: 1 }));
        return;
      }
      for (const w of wrong) out.push(rebuild(w));
    };
    walk(v, (x) => x);
    return out;
  }

  /** The kinds fastEvent checks itself (the others always go to zod). */
  const FAST_KINDS = [
    'item',
    'request',
    'response',
    'record',
    'mask',
    'todo',
    'compaction/start',
    'compaction/summary',
    'compaction/summary-error',
    'compaction/end',
  ];
  const samples = FIXTURES.flatMap((n) => jsonLines(read(n)).map((l) => l.value)).filter((v) => FAST_KINDS.includes(String(v.kind)));

  it('takes the common kinds of the fixtures', () => {
    const taken = samples.filter((v) => fastEvent(v) !== null).length;
    expect(taken / samples.length).toBeGreaterThan(0.7);
  });

  it('gives exactly what zod gives, or defers to zod', () => {
    let compared = 0;
    for (const sample of samples) {
      for (const v of [sample, ...mutations(sample)]) {
        if (typeof v !== 'object' || v === null || Array.isArray(v)) continue;
        // fastEvent may complete the line's object in place: zod reads the line as written.
        const fast = fastEvent(structuredClone(v) as Record<string, unknown>);
        if (fast === null) continue;
        const zod = CanonicalEvent.safeParse(v);
        expect(zod.success, JSON.stringify(v)).toBe(true);
        if (zod.success) expect(fast).toStrictEqual(zod.data);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(samples.length);
  });

  it('applies the schema defaults (op append, purpose agent)', () => {
    expect(fastEvent({ kind: 'item', item: { id: 'a', role: 'user', blocks: [] } })).toStrictEqual({
      kind: 'item',
      item: { id: 'a', role: 'user', blocks: [] },
      op: { op: 'append' },
    });
    expect(fastEvent({ kind: 'request', id: 'r', at: 1 })).toStrictEqual({ kind: 'request', id: 'r', purpose: 'agent', at: 1 });
  });

  it('takes every surface op as zod does, and shares one object per op without fields', () => {
    const item = (op?: unknown): Record<string, unknown> => ({
      kind: 'item',
      item: { id: 'a', role: 'assistant', blocks: [] },
      ...(op === undefined ? {} : { op }),
    });
    const valid = [
      undefined,
      { op: 'append' },
      { op: 'extend' },
      { op: 'log' },
      { op: 'replace', from: 'a', to: 'b' },
      { op: 'insert', before: 'b' },
    ];
    for (const op of valid) expect(fastEvent(item(op))).toStrictEqual(CanonicalEvent.parse(item(op)));
    const opOf = (v: Record<string, unknown>): unknown => (fastEvent(v) as { op?: unknown } | null)?.op;
    expect(opOf(item())).toBe(opOf(item({ op: 'append' })));
    expect(opOf(item({ op: 'extend' }))).toBe(opOf(item({ op: 'extend' })));
    const invalid = [
      { op: 'extend', x: 1 },
      { op: 'replace', from: 'a' },
      { op: 'replace', from: '', to: 'b' },
      { op: 'insert', before: 1 },
      { op: 'nope' },
      'extend',
      null,
    ];
    for (const op of invalid) expect(fastEvent(item(op))).toBeNull();
  });
});
