import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateSession } from '../../../../src/main/cli/validate';
import { SessionInspector } from '../../../../src/main/session/inspector';
import { loadSession } from '../../../../src/main/session/load';
import { defaultPolicyFor, policyLines } from '../../../../src/shared/tokens/policy';
import type { Diagnostic } from '../../../../src/shared/model/diagnostic';
import { FIXTURES, REAL, WRITTEN } from './helpers';

async function findings(path: string): Promise<Diagnostic[]> {
  const s = await loadSession(path);
  try {
    return await validateSession(new SessionInspector(s));
  } finally {
    await s.dispose();
  }
}

describe("Gemini CLI's compression policy", () => {
  it('is the preset of its sessions: half the 1,048,576-token window, each number with its source', () => {
    const p = defaultPolicyFor('gemini-cli');
    expect(p.id).toBe('gemini-cli');
    expect(policyLines(p, null)).toMatchObject({ window: 1_048_576, trigger: 524_288 });
    expect(p.sources.trigger).toContain('DEFAULT_COMPRESSION_TOKEN_THRESHOLD');
  });

  it('finds nothing to report on the healthy real sessions and on the written one but its bad lines', async () => {
    for (const f of REAL) expect(await findings(join(FIXTURES, f)), f).toEqual([]);
    expect((await findings(join(FIXTURES, WRITTEN))).map((d) => d.rule).sort()).toEqual(['READ_INVALID_JSON', 'UNKNOWN_RECORDS']);
  });

  it('says, at info, that a compression may have failed unseen when a turn past the trigger goes on uncompressed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'palimpsest-gemini-policy-'));
    const path = join(dir, 'session-2026-07-14T10-00-aaaaaaaa.jsonl');
    const g = (id: string, input: number) =>
      JSON.stringify({
        id,
        timestamp: '2026-07-14T10:00:02Z',
        type: 'gemini',
        content: 'ok',
        model: 'gemini-2.5-pro',
        tokens: { input, output: 5, cached: 0, total: input + 5 },
      });
    const u = (id: string) => JSON.stringify({ id, timestamp: '2026-07-14T10:00:01Z', type: 'user', content: [{ text: 'go on' }] });
    const lines = [
      JSON.stringify({ sessionId: 's', projectHash: 'h', startTime: '2026-07-14T10:00:00Z', kind: 'main' }),
      u('u1'),
      g('g1', 600_000),
      u('u2'),
      g('g2', 610_000),
    ];
    await writeFile(path, `${lines.join('\n')}\n`);
    const ds = await findings(path);
    expect(ds.map((d) => [d.rule, d.severity])).toEqual([['TRIGGER_MISSED', 'info']]);
    expect(ds[0]?.message).toContain('524,288-token automatic compaction trigger of Gemini CLI');
  });

  it('reads outputs cut to the function-response budget alone as pruned in place, with no finding', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'palimpsest-gemini-cut-'));
    const path = join(dir, 'session-2026-07-14T11-00-bbbbbbbb.jsonl');
    const long = 'x'.repeat(5000);
    const cut = `Output too large. Showing first 800 and last 3,200 characters. For full output see: /t/read_file_1.txt\n${'x'.repeat(800)}\n\n... [1,000 characters omitted] ...\n\n${'x'.repeat(3200)}`;
    const response = (output: string) => [{ functionResponse: { id: 'c1', name: 'read_file', response: { output } } }];
    const call = (output: string) => ({ id: 'c1', name: 'read_file', args: {}, status: 'success', result: response(output) });
    const u = { id: 'u1', timestamp: '2026-07-14T11:00:01Z', type: 'user', content: [{ text: 'read it' }] };
    const g = (output: string) => ({
      id: 'g1',
      timestamp: '2026-07-14T11:00:02Z',
      type: 'gemini',
      content: '',
      toolCalls: [call(output)],
      model: 'gemini-2.5-pro',
    });
    const g2 = { id: 'g2', timestamp: '2026-07-14T11:00:03Z', type: 'gemini', content: 'done', model: 'gemini-2.5-pro' };
    const lines = [
      { sessionId: 's', projectHash: 'h', startTime: '2026-07-14T11:00:00Z', kind: 'main' },
      u,
      g(long),
      g2,
      { $set: { messages: [u, g(cut), g2] } },
    ];
    await writeFile(path, `${lines.map((x) => JSON.stringify(x)).join('\n')}\n`);
    expect(await findings(path)).toEqual([]);
    const s = await loadSession(path);
    try {
      const all = [...Array(s.events.length).keys()].map((i) => s.events.at(i));
      expect(all.filter((e) => e?.kind === 'compaction/start')).toEqual([]);
      expect(all.filter((e) => e?.kind === 'record').map((e) => e?.kind === 'record' && e.type)).toContain('content-truncated');
      const pruned = [...Array(s.events.length).keys()]
        .map((i) => s.events.at(i))
        .find((e) => e?.kind === 'item' && e.item.derivation?.kind === 'pruned');
      expect(pruned).toMatchObject({
        item: { id: 'g1_response~2', derivation: { of: 'g1_response', head: 800, tail: 3200, omitted: 1000 } },
      });
    } finally {
      await s.dispose();
    }
  });
});
