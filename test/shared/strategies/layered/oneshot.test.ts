import { describe, expect, it } from 'vitest';
import { viewTokens } from '../../../../src/shared/strategies/common/render';
import { charCounter } from '../common/char-counter';
import { layered } from '../../../../src/shared/strategies/layered';
import type { StrategyProgress } from '../../../../src/shared/strategies/types';
import { byStage, FakeSummarizer } from '../fake-summarizer';
import { call, history, input, mapsOf, passAudit, result, sized, text } from './helpers';

const HANDOFF = '## Objective\nShip it.\n## Constraints\nNone.';

describe('layered: definition and one-shot path', () => {
  it('follows cosh, needs a model', () => {
    expect(layered).toMatchObject({ id: 'layered', source: '001', needsModel: true });
  });

  it('sends one one-shot request with maxOutput null when the request fits the summarizer window', async () => {
    const items = history(20, 100); // 2,000 tokens; agent window 2,500 → 500-token tail = the last 5 items
    const fake = new FakeSummarizer([byStage('one-shot', { text: HANDOFF })], 128_000, null);
    const res = await layered.run(input(items, fake));

    expect(res.outcome).toBe('committed');
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]).toMatchObject({ stage: 'one-shot', maxOutput: null });
    expect(res.mapreduce).toBeNull();
    const view = res.view;
    if (!view) throw new Error('no view');
    expect(view.system).toEqual([{ type: 'text', text: 'You are a coding agent.' }]);
    expect(view.items.map((it) => it.id).slice(1)).toEqual(['i15', 'i16', 'i17', 'i18', 'i19']);
    const cp = view.items[0];
    expect(cp).toMatchObject({
      role: 'user',
      derivation: { kind: 'checkpoint', part: 'summary', covers: items.slice(0, 15).map((it) => it.id) },
    });
    // The raw tail is unchanged, item for item.
    for (const [k, it] of view.items.slice(1).entries()) expect(it.blocks).toEqual(items[15 + k]?.blocks);
    // The summary is the installed (annotated) text, the one priced.
    expect(res.summary).toBe(cp?.blocks[0]?.type === 'text' ? cp.blocks[0].text : null);
    expect(res.summary).toContain(HANDOFF);
    expect(res.summary).toMatch(
      /^\[Checkpoint \(layered\): summary of items #0–#14 \(15 items\); the 5 most recent item\(s\) follow verbatim\]/,
    );
    expect(res.tokens).toEqual({ before: viewTokens(input(items, fake).source, charCounter), after: viewTokens(view, charCounter) });
  });

  it("reserves the connector's output ceiling in the fit check, and nothing when it is unknown", async () => {
    const items = history(20, 100);
    // One-shot input ≈ 1,500 tokens of items + instructions: it fits 2,000 with no known ceiling…
    const unknown = new FakeSummarizer([byStage('one-shot', { text: HANDOFF })], 2_000, null);
    expect((await layered.run(input(items, unknown))).outcome).toBe('committed');
    expect(unknown.requests.map((r) => r.stage)).toEqual(['one-shot']);
    // …but not beside a 500-token ceiling the connector sends: MapReduce instead.
    const known = new FakeSummarizer([passAudit], 2_000, 500);
    const res = await layered.run(input(items, known));
    expect(res.outcome).toBe('committed');
    expect(known.requests.some((r) => r.stage === 'one-shot')).toBe(false);
    expect(mapsOf(known.requests).length).toBeGreaterThan(0);
    expect(res.notes.join('\n')).toContain('exceeds the 2000-token summarizer window');
  });

  it("uses the agent's window when the summarizer's is unknown", async () => {
    const items = history(20, 100);
    const fake = new FakeSummarizer([passAudit], null, 1_000); // 1,000-token ceiling + ~1,800 input > 2,500
    const res = await layered.run(input(items, fake));
    expect(res.outcome).toBe('committed');
    expect(mapsOf(fake.requests)[0]?.maxOutput).toBe(250); // 10 % of the agent's 2,500
  });

  it('a provider overflow on the one-shot request switches to MapReduce at the reported window', async () => {
    const items = history(20, 100);
    const fake = new FakeSummarizer(
      [byStage('one-shot', { error: { kind: 'overflow', message: 'too long', window: 1_800 } }), passAudit],
      128_000,
      null,
    );
    const res = await layered.run(input(items, fake));
    expect(res.outcome).toBe('committed');
    expect(fake.requests[0]?.stage).toBe('one-shot');
    for (const m of mapsOf(fake.requests)) expect(m.maxOutput).toBe(180);
    expect(res.notes.join('\n')).toContain('reported a 1800-token window');
  });

  it('a generic one-shot error fails; it is not treated as an overflow', async () => {
    const fake = new FakeSummarizer([byStage('one-shot', { error: { kind: 'http', status: 500, message: 'boom' } })], 128_000, null);
    const res = await layered.run(input(history(20, 100), fake));
    expect(res).toMatchObject({ outcome: 'failed', view: null, summary: null });
    expect(res.error).toContain('http 500');
    expect(fake.requests).toHaveLength(1);
  });

  it('an incomplete answer (finish reason length) is not a handoff', async () => {
    const fake = new FakeSummarizer([byStage('one-shot', { text: HANDOFF, finish: { raw: 'length', reason: 'length' } })], 128_000, null);
    const res = await layered.run(input(history(20, 100), fake));
    expect(res.outcome).toBe('failed');
    expect(res.error).toContain('incomplete');
  });

  it('rejects a handoff that exceeds the commit budget (agent window − its output reserve), without a view', async () => {
    const items = history(20, 100);
    const long = `## Objective\n${'x'.repeat(6_000)}`; // ≈ 1,500 tokens + a 500-token tail
    const ok = await layered.run(input(items, new FakeSummarizer([byStage('one-shot', { text: long })], 128_000, null)));
    expect(ok.outcome).toBe('committed');
    expect(ok.tokens.after).toBeGreaterThan(1_900);
    expect(ok.tokens.after).toBeLessThanOrEqual(2_500);

    const res = await layered.run(
      input(items, new FakeSummarizer([byStage('one-shot', { text: long })], 128_000, null), { maxOutput: 600 }),
    );
    expect(res).toMatchObject({ outcome: 'failed', view: null, summary: null });
    expect(res.error).toMatch(/handoff rejected: .* over the commit budget of 1900 \(agent window 2500 − output reserve 600\)/);
  });

  it('keeps unanswered user messages verbatim after the checkpoint', async () => {
    const items = [
      ...history(20, 100),
      sized(20, 'user', 400, 'steer: also update the docs'),
      sized(21, 'user', 200, 'queued: and the changelog'),
    ];
    const fake = new FakeSummarizer([byStage('one-shot', { text: HANDOFF })], 128_000, null);
    const res = await layered.run(input(items, fake));
    expect(res.outcome).toBe('committed');
    expect(res.view?.items.slice(-2).map((it) => it.id)).toEqual(['i20', 'i21']);
  });

  it('notes stale observations: a file read in the prefix and changed later', async () => {
    const items = [
      text(0, 'user', 'Fix the bug in src/app.ts'),
      call(1, 'r1', 'read_file', { path: 'src/app.ts' }),
      result(2, 'r1', 'const a = 1;'),
      call(3, 'e1', 'edit_file', { path: 'src/app.ts', old: '1', new: '2' }),
      result(4, 'e1', 'ok'),
      ...history(6, 100).map((it, k) => ({ ...it, id: `t${k}` })),
    ];
    const fake = new FakeSummarizer([byStage('one-shot', { text: HANDOFF })], 128_000, null);
    const res = await layered.run(input(items, fake, { window: 2_000 }));
    expect(res.notes).toContain('stale observation: src/app.ts read at #1, changed at #3 — the handoff does not mention this path');
  });

  it('reports progress and returns failed without a summarizer, on bad options, and when cancelled', async () => {
    const seen: StrategyProgress[] = [];
    const fake = new FakeSummarizer([byStage('one-shot', { text: HANDOFF })], 128_000, null);
    await layered.run(input(history(20, 100), fake, { onProgress: (p) => seen.push(p) }));
    expect(seen).toContainEqual({ stage: 'one-shot', done: 0, total: 1 });

    expect(await layered.run(input(history(20), null))).toMatchObject({
      outcome: 'failed',
      error: expect.stringContaining('needs a summarizer'),
    });
    expect(await layered.run(input(history(20), fake, { options: { concurrency: 8 } }))).toMatchObject({
      outcome: 'failed',
      error: expect.stringContaining('concurrency'),
    });

    const ac = new AbortController();
    ac.abort();
    const before = fake.requests.length;
    expect(await layered.run(input(history(20), fake, { signal: ac.signal }))).toMatchObject({
      outcome: 'failed',
      error: 'cancelled',
      view: null,
    });
    expect(fake.requests.length).toBe(before);
  });

  it('fails when there is nothing older than the raw tail to compact', async () => {
    const fake = new FakeSummarizer([], 128_000, null);
    const res = await layered.run(input(history(4, 100), fake));
    expect(res).toMatchObject({ outcome: 'failed', error: expect.stringContaining('nothing to compact') });
    expect(fake.requests).toHaveLength(0);
  });
});
