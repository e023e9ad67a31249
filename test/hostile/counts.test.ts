import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSession } from '../../src/main/session/load';

// Counts read from a log are bounded by what the log can hold: an impossible one is a finding
// naming the file and line, never a length the importer fills.

const dir = mkdtempSync(join(tmpdir(), 'palimpsest-counts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const V = '2.1.332';
const user = {
  type: 'user',
  uuid: 'u1',
  parentUuid: null,
  sessionId: 's1',
  version: V,
  timestamp: '2026-05-01T10:00:00.000Z',
  message: { role: 'user', content: 'hi' },
};
const blob = { type: 'api-request-blob', hash: 'b1', message: { role: 'user', content: 'hi' }, sessionId: 's1' };
const blob2 = { type: 'api-request-blob', hash: 'b2', message: { role: 'user', content: 'more' }, sessionId: 's1' };
const request = (id: string, keep: unknown, base: string | null, tail = ['b1']) => ({
  type: 'api-request',
  id,
  querySource: 'repl_main_thread',
  shapeHash: 'sh1',
  keep,
  base,
  tail,
  sessionId: 's1',
});

function write(name: string, values: readonly unknown[]): string {
  const path = join(dir, name);
  writeFileSync(path, `${values.map((v) => JSON.stringify(v)).join('\n')}\n`);
  return path;
}

async function timedLoad(path: string) {
  const heap = process.memoryUsage().heapUsed;
  const t0 = performance.now();
  const s = await loadSession(path);
  return { s, ms: performance.now() - t0, grew: process.memoryUsage().heapUsed - heap };
}

describe('hostile counts: Claude Code api-request keep', () => {
  for (const [title, keep, what] of [
    ['a keep of 1e9 with no base', 1e9, 'keep 1000000000 is more than the 2 messages the conversation holds so far'],
    ['a keep of 1e9 past its base', 1e9, 'keep 1000000000 is more than the 1 message request q0 holds'],
    ['a keep of -1', -1, 'keep -1 is not a count of messages'],
    ['a keep of 1.5', 1.5, 'keep 1.5 is not a count of messages'],
    ['a keep of "NaN"', 'NaN', 'keep "NaN" is not a count of messages'],
  ] as const) {
    it(`${title} is a finding naming file and line, not an allocation`, async () => {
      const withBase = title.includes('past its base');
      const lines = withBase ? [user, blob, request('q0', 0, null), request('q1', keep, 'q0')] : [user, blob, request('q1', keep, null)];
      const path = write(`keep-${title.replace(/\W+/g, '-')}.jsonl`, lines);
      const { s, ms, grew } = await timedLoad(path);
      expect(ms).toBeLessThan(1000);
      expect(grew).toBeLessThan(64 * 1024 * 1024);
      const d = s.diagnostics.find((x) => x.rule === 'CC_API_REQUEST_BAD_COUNT');
      expect(d?.file).toBe(path);
      expect(d?.line).toBe(lines.length);
      expect(d?.message).toContain(`line ${lines.length}`);
      expect(d?.message).toContain(what);
    }, 10_000);
  }

  it('a keep that is an array nested 100,000 deep is a finding, not a stack overflow', async () => {
    // Built as text: JSON.stringify would overflow on it too.
    const line = JSON.stringify(request('q1', 0, null)).replace('"keep":0', `"keep":${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    const path = join(dir, 'keep-deep.jsonl');
    writeFileSync(path, `${JSON.stringify(user)}\n${JSON.stringify(blob)}\n${line}\n`);
    const { s } = await timedLoad(path);
    const messages = s.diagnostics.map((d) => `${d.rule}: ${d.message}`);
    expect(messages.join('\n')).not.toContain('Maximum call stack');
    expect(messages.find((m) => m.startsWith('CC_API_REQUEST_BAD_COUNT'))).toContain('keep an array is not a count of messages');
  }, 10_000);

  it('200 records each with a keep of 1e9 load fast and make one finding', async () => {
    const lines = [user, blob, ...Array.from({ length: 200 }, (_, i) => request(`q${i}`, 1e9, i === 0 ? null : `q${i - 1}`))];
    const path = write('keep-200.jsonl', lines);
    const { s, ms } = await timedLoad(path);
    expect(ms).toBeLessThan(1000);
    const ds = s.diagnostics.filter((x) => x.rule === 'CC_API_REQUEST_BAD_COUNT');
    expect(ds).toHaveLength(1);
    expect(ds[0]?.message).toMatch(/^200 api-request records \(first at line 3\)/);
  }, 10_000);

  it('a keep the base holds is still rebuilt (the bound is not too tight)', async () => {
    const path = write('keep-ok.jsonl', [user, blob, request('q0', 0, null), blob2, request('q1', 1, 'q0', ['b2'])]);
    const { s } = await timedLoad(path);
    expect(s.diagnostics.map((d) => d.rule)).not.toContain('CC_API_REQUEST_BAD_COUNT');
    expect(s.diagnostics.map((d) => d.rule)).not.toContain('CC_API_REQUEST_UNRESOLVED');
  });
});

describe('hostile counts: lists a log makes as long as it likes', () => {
  it('a Claude Code record with 200,000 unknown fields: one finding listing the first few, no stack overflow', async () => {
    const extra: Record<string, number> = {};
    for (let i = 0; i < 200_000; i++) extra[`f${i}`] = 1;
    const path = write('unknown-fields.jsonl', [
      { ...user, version: '2.1.100' },
      { ...user, uuid: 'u2', parentUuid: 'u1', version: '2.1.100', ...extra },
    ]);
    const s = await loadSession(path);
    const d = s.diagnostics.find((x) => x.rule === 'UNKNOWN_FIELDS');
    expect(d).toMatchObject({ file: path, line: 2 });
    expect(d?.message).toContain('field "f0" ×1 (first at line 2)');
    expect(d?.message).toContain('and 199980 more');
    expect(d?.message.length).toBeLessThan(2000);
  }, 30_000);

  it('a cosh message with 200,000 context item ids: its bounds without a stack overflow, a short summary', async () => {
    const ids = Array.from({ length: 200_000 }, (_, i) => i + 1);
    const path = write('cosh-ids.jsonl', [
      {
        schema_version: 1,
        event_id: 1,
        branch_id: 'b',
        delta: {
          type: 'genesis',
          metadata: {
            session_id: 'b',
            title: 't',
            title_generated: false,
            created_at: 1778000000,
            cwd: '/x',
            provider: 'anthropic',
            model: 'm',
            reasoning: null,
          },
        },
      },
      {
        schema_version: 1,
        event_id: 2,
        branch_id: 'b',
        delta: {
          type: 'message',
          change: {
            operation: 'upsert',
            message: {
              id: 'm1',
              role: 'user',
              parts: [{ type: 'Text', text: 'hi', synthetic: false }],
              created_at: 1778000000,
              agent: null,
              model: null,
            },
            context_item_ids: ids,
          },
        },
      },
    ]);
    const s = await loadSession(path);
    expect(s.format).toBe('cosh');
    expect(s.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const summaries: string[] = [];
    for (let seq = 0; seq < s.events.length; seq++) {
      const e = s.events.at(seq);
      if (e?.kind === 'record' && typeof e.summary === 'string') summaries.push(e.summary);
    }
    const m = summaries.find((x) => x.startsWith('display message m1'));
    expect(m).toContain('and 199980 more');
    expect(m?.length).toBeLessThan(500);
  }, 30_000);
});

describe('hostile counts: DeepSeek Harness sourceEventSeqs', () => {
  it('200,000 seqs the file does not have: one finding naming the first few, not a megabyte message', async () => {
    const fixture = 'fixtures/dsh/examples/headless-agent/tests/snapshots/advanced-toolchain/session.jsonl';
    const lines = readFileSync(fixture, 'utf8')
      .split('\n')
      .slice(0, 15)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    (lines[14] as Record<string, unknown>).sourceEventSeqs = Array.from({ length: 200_000 }, (_, i) => 1_000_000 + i);
    const path = write('dsh-sources.jsonl', lines);
    const s = await loadSession(path);
    const d = s.diagnostics.find((x) => x.rule === 'DSH_BAD_REF');
    expect(d).toMatchObject({ file: path, line: 15 });
    expect(d?.message).toContain('DSH seqs 1000000, 1000001');
    expect(d?.message).toContain('and 199980 more');
    expect(d?.message.length).toBeLessThan(1000);
  }, 30_000);
});
