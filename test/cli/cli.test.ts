import { mkdtemp, readFile, writeFile, copyFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runBuilt, type Run } from './run-built';

const RECOVERY = 'fixtures/dsh/examples/headless-agent/tests/snapshots/compaction-recovery/session.jsonl';

/** A run killed, or ended by a signal, is code -1: never taken for exit 0. */
const run = (...args: string[]): Promise<Run> => runBuilt(args, 120_000);

let tmp = '';
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'palimpsest-cli-'));
});

describe('palimpsest inspect', () => {
  it('reports format, requests with reported input tokens, compactions and diagnostics as stable JSON', async () => {
    const r = await run('inspect', RECOVERY, '--json');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.palimpsest).toBe(1);
    expect(j.format).toBe('dsh');
    expect(j.requests.map((q: { index: number }) => q.index)).toEqual([0, 1, 2, 3]);
    expect(j.requests[0].reportedInputTokens).toBe(24);
    expect(j.requests[1].reportedInputTokens).toBeNull();
    expect(j.requests[1].error.code).toBe('CONTEXT_WINDOW_EXCEEDED');
    expect(j.compactions).toEqual([
      expect.objectContaining({ id: '338e88fa-e78b-4d49-bd38-8f919e85f5e1', trigger: 'overflow', outcome: 'committed', preTokens: null }),
    ]);
    expect(j.diagnostics).toEqual([]);
  });

  it('exits 1 with file and line when the session has a malformed line, and still loads the rest', async () => {
    const bad = join(tmp, 'bad.jsonl');
    const good = await readFile(RECOVERY, 'utf8');
    const lines = good.split('\n');
    lines.splice(5, 0, '{"type": "user/message", "data": {');
    await writeFile(bad, lines.join('\n'));
    const r = await run('inspect', bad, '--json');
    expect(r.code).toBe(1);
    const j = JSON.parse(r.stdout);
    expect(j.diagnostics).toContainEqual(expect.objectContaining({ rule: 'READ_INVALID_JSON', severity: 'error', file: bad, line: 6 }));
    expect(j.requests).toHaveLength(4);
  });

  it('inspects every session under a directory', async () => {
    const dir = join(tmp, 'tree');
    await mkdir(join(dir, 'a'), { recursive: true });
    await copyFile(RECOVERY, join(dir, 'a', 'session.jsonl'));
    await writeFile(join(dir, 'junk.jsonl'), '{"hello": "world"}\n');
    const r = await run('inspect', dir, '--json');
    const j = JSON.parse(r.stdout);
    expect(j.sessions).toHaveLength(2);
    expect(j.sessions[0]).toMatchObject({ format: 'dsh' });
    expect(j.sessions[1]).toMatchObject({ error: expect.stringContaining('not a session format') });
    expect(r.code).toBe(1);
  });

  it('exits 2 on a missing file, an unknown option or an unknown command', async () => {
    expect((await run('inspect', join(tmp, 'nope.jsonl'))).code).toBe(2);
    const opt = await run('inspect', RECOVERY, '--jsn');
    expect(opt.code).toBe(2);
    expect(opt.stderr).toContain('unknown option --jsn');
    expect((await run('frobnicate')).code).toBe(2);
  });
});

describe('palimpsest view', () => {
  it('prints the model view with provenance and fates, with full text re-read from the file', async () => {
    const r = await run('view', RECOVERY, '--request', '3', '--json');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.items.map((i: { kind: string }) => i.kind)).toEqual(['checkpoint', 'tool_call', 'tool_result']);
    // The system prompt is longer than what is kept in memory: the view re-reads it whole.
    const system = j.system.map((b: { text: string }) => b.text).join('');
    expect(system.length).toBeGreaterThan(2000);
    expect(j.system[0].elided).toBeUndefined();
    expect(j.fates).toContainEqual({
      id: 'dsh:4',
      seq: expect.any(Number),
      fate: 'summarised',
      compactionId: '338e88fa-e78b-4d49-bd38-8f919e85f5e1',
      by: 'dsh:21',
    });
  });

  it('exits 2 with the valid range when the request does not exist', async () => {
    const r = await run('view', RECOVERY, '--request', '99');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('it has 4 requests (0–3)');
  });
});

describe('palimpsest events', () => {
  it('prints JSON Lines with file, line and offset, within the range asked', async () => {
    const r = await run('events', RECOVERY, '--from', '2', '--to', '6', '--json');
    expect(r.code).toBe(0);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.map((e) => e.seq)).toEqual([2, 3, 4, 5, 6]);
    for (const e of rows) expect(e).toMatchObject({ file: RECOVERY, line: expect.any(Number), offset: expect.any(Number) });
    // The offset really points at the line it names.
    const bytes = await readFile(RECOVERY);
    const e = rows[3];
    const lineStart = bytes.subarray(e.offset, e.offset + 20).toString();
    expect(lineStart.startsWith('{')).toBe(true);
    const lineNo = bytes.subarray(0, e.offset).toString().split('\n').length;
    expect(lineNo).toBe(e.line);
  });
});
