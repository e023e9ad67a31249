import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseEvent } from '../../src/main/importers/cosh/parse';
import { loadSession } from '../../src/main/session/load';

/** A value nested `depth` deep, built as text: JSON.parse takes it, a recursive walk does not. */
const deep = (depth: number): unknown => JSON.parse('['.repeat(depth) + ']'.repeat(depth));

describe('cosh: an event naming its kind with a deeply nested value', () => {
  // Found by the fuzz run: the message about an unknown kind quoted the value with JSON.stringify,
  // which overflowed the stack on 10,000 nested arrays and crashed every command on the file.
  const cases: [string, Record<string, unknown>][] = [
    ['a context field', { type: 'context', change: { field: deep(100_000) } }],
    ['a metadata field', { type: 'metadata', change: { field: deep(100_000) } }],
    ['a message operation', { type: 'message', change: { operation: deep(100_000) } }],
    ['a delta type', { type: deep(100_000) }],
    ['a reference selection kind', { type: 'snapshot', name: 'n', target: { selection: { kind: deep(100_000) } } }],
  ];
  for (const [what, delta] of cases) {
    it(`is a bad event, not a stack overflow: ${what}`, () => {
      const r = parseEvent({ schema_version: 1, event_id: 7, branch_id: 'main', delta });
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.problem).toMatch(/an array/);
        expect(r.problem.length).toBeLessThan(200);
      }
    });
  }

  it('still quotes a string it does not know', () => {
    const r = parseEvent({ schema_version: 1, event_id: 7, branch_id: 'main', delta: { type: 'context', change: { field: 'nope' } } });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.problem).toBe('unknown context field "nope"');
      expect(r.unknown).toBe('context field "nope"');
    }
  });
});

describe('Palimpsest: a line whose kind or version is a deeply nested value', () => {
  // Found by the fuzz run: the message and the unknown event's type quoted the kind with
  // JSON.stringify, which overflowed the stack and ended the load with an internal error.
  const dir = mkdtempSync(join(tmpdir(), 'palimpsest-fuzz-findings-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const nested = '['.repeat(100_000) + ']'.repeat(100_000);
  const lines = readFileSync('fixtures/palimpsest/basic.jsonl', 'utf8').split('\n');

  it('is a bad line with a diagnostic, not a stack overflow: the kind', async () => {
    const file = join(dir, 'kind.jsonl');
    writeFileSync(file, lines.map((l, i) => (i === 3 ? l.replace(/"kind":"[a-z/]+"/, `"kind":${nested}`) : l)).join('\n'));
    const session = await loadSession(file);
    try {
      const d = session.diagnostics.find((x) => x.line === 4);
      expect(d?.message).toMatch(/"kind" must be a string, not an array/);
    } finally {
      await session.dispose();
    }
  });

  it('is a warning, not a stack overflow: the version', async () => {
    const file = join(dir, 'version.jsonl');
    writeFileSync(file, lines.map((l, i) => (i === 0 ? l.replace(/"version":1/, `"version":${nested}`) : l)).join('\n'));
    const session = await loadSession(file);
    try {
      expect(session.diagnostics.some((x) => /says version an array/.test(x.message))).toBe(true);
    } finally {
      await session.dispose();
    }
  });
});

describe('Rind: a meta.json version or a compaction strategy that is a deeply nested value', () => {
  // The bug the fuzz run found in cosh, found here by hand: the warnings quoted the value with JSON.stringify, which
  // overflowed the stack and ended the load with an internal error.
  const dir = mkdtempSync(join(tmpdir(), 'palimpsest-fuzz-rind-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const nested = '['.repeat(100_000) + ']'.repeat(100_000);

  it('loads with warnings, not a stack overflow', async () => {
    const src = 'fixtures/rind/20260514_101500_a1b2c3d4';
    const session = join(dir, '20260514_101500_a1b2c3d4');
    mkdirSync(session);
    for (const f of ['messages.jsonl', 'tool_calls.jsonl']) writeFileSync(join(session, f), readFileSync(join(src, f)));
    writeFileSync(
      join(session, 'meta.json'),
      readFileSync(join(src, 'meta.json'), 'utf8').replace(/"schema_version": "2.0"/, `"schema_version": ${nested}`),
    );
    const compactions = readFileSync(join(src, 'compactions.jsonl'), 'utf8').split('\n');
    compactions[0] = (compactions[0] ?? '').replace(/"strategy":"[a-z_]+"/, `"strategy":${nested}`);
    writeFileSync(join(session, 'compactions.jsonl'), compactions.join('\n'));
    const loaded = await loadSession(session);
    try {
      expect(loaded.diagnostics.some((d) => /schema_version an array/.test(d.message))).toBe(true);
    } finally {
      await loaded.dispose();
    }
  });
});

describe('Rind: a compaction record whose id is a deeply nested value', () => {
  // Found by the fuzz run (seed 2, mutant 102): Rind keys records by `str(id)`, which the importer
  // wrote with JSON.stringify; an id of arrays nested 100,000 deep overflowed the stack there.
  const dir = mkdtempSync(join(tmpdir(), 'palimpsest-fuzz-rind-id-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("loads, keyed by the id's text, not a stack overflow", async () => {
    const src = 'fixtures/rind/20260514_120000_deadbeef';
    const session = join(dir, '20260514_120000_deadbeef');
    mkdirSync(session);
    for (const f of ['messages.jsonl', 'tool_calls.jsonl']) writeFileSync(join(session, f), readFileSync(join(src, f)));
    const compactions = readFileSync(join(src, 'compactions.jsonl'), 'utf8').split('\n');
    const line = JSON.parse(compactions[0] ?? '{}') as Record<string, unknown>;
    delete line.id;
    compactions[0] = `{"id":${'['.repeat(100_000)}${']'.repeat(100_000)},${JSON.stringify(line).slice(1)}`;
    writeFileSync(join(session, 'compactions.jsonl'), compactions.join('\n'));
    const loaded = await loadSession(session);
    await loaded.dispose();
    expect(loaded.events.length).toBeGreaterThan(0);
  });
});

describe('DeepSeek Harness: names and values a line holds as deeply nested values', () => {
  // Messages quoted these with JSON.stringify, which overflows the stack on a value nested 100,000
  // deep; the line was then lost as a failed import instead of reported for what it is.
  const dir = mkdtempSync(join(tmpdir(), 'palimpsest-fuzz-dsh-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const nested = '['.repeat(100_000) + ']'.repeat(100_000);
  const src = readFileSync('fixtures/diagnostics/SUMMARY_NOT_SMALLER/pass.dsh.jsonl', 'utf8').split('\n');

  async function diagnosticsOf(name: string, lines: string[]): Promise<string[]> {
    const file = join(dir, name);
    writeFileSync(file, lines.join('\n'));
    const loaded = await loadSession(file);
    await loaded.dispose();
    return loaded.diagnostics.map((d) => `${d.rule}: ${d.message}`);
  }

  it('reports a header version that is nested deep as a version, not a failed line', async () => {
    const lines = [...src];
    lines[0] = (lines[0] ?? '').replace('"version":0', `"version":${nested}`);
    const found = await diagnosticsOf('version.jsonl', lines);
    expect(found.some((d) => d.startsWith('DSH_VERSION') && d.includes('an array'))).toBe(true);
    expect(found.join('\n')).not.toContain('Maximum call stack');
  });

  it('reports a surfaceOp nested deep as a bad record', async () => {
    const lines = [...src];
    const op = lines.findIndex((l) => l.includes('"surfaceOp":"append"'));
    lines[op] = (lines[op] ?? '').replace('"surfaceOp":"append"', `"surfaceOp":{"op":${nested}}`);
    const found = await diagnosticsOf('surface.jsonl', lines);
    expect(found.some((d) => d.startsWith('DSH_BAD_RECORD') && d.includes('surfaceOp'))).toBe(true);
    expect(found.join('\n')).not.toContain('Maximum call stack');
  });
});
