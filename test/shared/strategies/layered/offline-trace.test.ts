import { describe, expect, it } from 'vitest';
import type { Item } from '../../../../src/shared/model/item';
import { charCounter } from '../common/char-counter';
import { layered } from '../../../../src/shared/strategies/layered';
import { HANDOFF_SECTIONS } from '../../../../src/shared/strategies/layered/prompts';
import type { SourceItem, StrategyResult, SummaryRequest } from '../../../../src/shared/strategies/types';
import { FakeSummarizer, type FakeRule } from '../fake-summarizer';
import { call, input, mapsOf, result, text } from './helpers';

/*
 * cosh's "offline long trace" in spirit: 24 file-inspection turns, constraints, a decision,
 * verified work, open work, a later file invalidation and pending user steering, compacted through
 * three paths (one-shot, sequential MapReduce, parallel MapReduce) with scripted replies — not a
 * live model. It proves transport behaviour for the supplied replies, not model recall.
 */

const TASK_MARKERS = ['CONSTRAINT-MARK', 'DECISION-MARK', 'VERIFIED-MARK', 'OPEN-WORK-MARK', 'STEERING-MARK'];
const STALE_CONTENT = 'STALE-CONTENT-MARK';

function trace(): SourceItem[] {
  const items: SourceItem[] = [];
  const add = (f: (i: number) => SourceItem) => items.push(f(items.length));
  add((i) =>
    text(
      i,
      'user',
      'Migrate the config loader to YAML. CONSTRAINT-MARK: do not change the public API of src/config.ts; no network access.',
    ),
  );
  add((i) =>
    text(
      i,
      'assistant',
      'DECISION-MARK: use the bundled yaml package rather than a hand-written parser (evidence: package.json lists yaml 2.9).',
    ),
  );
  for (let turn = 0; turn < 24; turn++) {
    const path = turn === 4 ? 'src/config.ts' : `src/module${turn}.ts`;
    const body = turn === 4 ? `${STALE_CONTENT}: export function load() { return JSON.parse(raw); }\n` : '';
    add((i) => call(i, `read${turn}`, 'read_file', { path }));
    add((i) => result(i, `read${turn}`, `${body}${`// ${path} line\n`.repeat(60)}`));
    if (turn === 14) {
      add((i) => call(i, 'edit1', 'edit_file', { path: 'src/config.ts', old: 'JSON.parse(raw)', new: 'YAML.parse(raw)' }));
      add((i) => result(i, 'edit1', 'edited src/config.ts'));
      add((i) => text(i, 'assistant', 'VERIFIED-MARK: npm test passes for the loader (42 passed).'));
    }
  }
  add((i) => text(i, 'assistant', 'OPEN-WORK-MARK: src/cli.ts still calls the JSON loader; migrate it next.'));
  add((i) => text(i, 'user', 'STEERING-MARK: keep JSON support for one more release.'));
  return items;
}

/** The scripted model: answers every stage with the ten sections, carrying the task markers it is shown. */
const scripted: FakeRule = (req: SummaryRequest) => {
  const shown = req.messages.map((m) => m.text).join('\n');
  const found = TASK_MARKERS.filter((m) => shown.includes(m));
  if (req.stage === 'audit') {
    const [evidence = '', candidate = ''] = shown.split('CANDIDATE:');
    const missing = TASK_MARKERS.filter((m) => evidence.includes(m) && !candidate.includes(m));
    return { text: missing.length === 0 ? 'PASS' : `FAIL\n${missing.map((m) => `- missing ${m}`).join('\n')}` };
  }
  // A segment that shows the edit (or a summary that already says so) reports the invalidation.
  const changed = /edit_file[^\n]*src\/config\.ts/.test(shown) || shown.includes('STALE: src/config.ts');
  const section = (s: string) => {
    if (s === 'Invalidations') return changed ? 'STALE: src/config.ts (changed by edit_file)' : 'None.';
    const hits = found.filter((m) =>
      s === 'Constraints'
        ? m.startsWith('CONSTRAINT')
        : s === 'Decisions and evidence'
          ? m.startsWith('DECISION')
          : s === 'Completed work'
            ? m.startsWith('VERIFIED')
            : s === 'Active work'
              ? m.startsWith('OPEN')
              : false,
    );
    return hits.length > 0 ? hits.join('\n') : 'None.';
  };
  return { text: HANDOFF_SECTIONS.map((s) => `## ${s}\n${section(s)}`).join('\n') };
};

function viewText(items: readonly Item[]): string {
  return items.map((it) => JSON.stringify(it.blocks)).join('\n');
}

async function compact(summarizerWindow: number, options: Record<string, unknown>): Promise<{ res: StrategyResult; fake: FakeSummarizer }> {
  const fake = new FakeSummarizer([scripted], summarizerWindow, null);
  const res = await layered.run(input(trace(), fake, { window: 8_000, options }));
  return { res, fake };
}

describe('offline long trace (cosh)', () => {
  const source = trace();

  it('is the trace cosh describes: 24 file-inspection turns, a later invalidation, pending steering', () => {
    expect(source.filter((it) => it.blocks.some((b) => b.type === 'tool_call' && b.name === 'read_file'))).toHaveLength(24);
    expect(source.at(-1)?.role).toBe('user');
  });

  for (const [name, window, options] of [
    ['one-shot', 128_000, {}],
    ['sequential MapReduce', 4_000, { concurrency: 1 }],
    ['parallel MapReduce', 4_000, { concurrency: 4 }],
  ] as const) {
    it(`${name}: keeps the five task-state markers, excludes the stale content, preserves every item`, async () => {
      const { res, fake } = await compact(window, options);
      expect(res.outcome).toBe('committed');
      const items = res.view?.items ?? [];
      const shown = viewText(items);
      for (const m of TASK_MARKERS) expect(shown).toContain(m);
      expect(shown).not.toContain(STALE_CONTENT);
      expect(res.summary).toContain('STALE: src/config.ts');
      // Every original item is either covered by the checkpoint or kept verbatim, in order.
      const cp = items.find((it) => it.derivation?.kind === 'checkpoint');
      const covered = cp?.derivation?.kind === 'checkpoint' ? cp.derivation.covers : [];
      expect([...covered, ...items.filter((it) => it !== cp).map((it) => it.id)]).toEqual(source.map((it) => it.id));
      // The pending steering is verbatim in the tail, not only in the summary.
      expect(items.at(-1)).toMatchObject({ id: source.at(-1)?.id, role: 'user' });
      expect(res.notes.join('\n')).toContain('stale observation: src/config.ts read at #10, changed at #32');
      expect(res.notes.join('\n')).not.toContain('the handoff does not mention');
      if (window === 4_000) {
        expect(mapsOf(fake.requests).length).toBeGreaterThan(1);
        const peak = Math.max(
          ...mapsOf(fake.requests).map((r) => charCounter(r.system ?? '') + r.messages.reduce((n, m) => n + charCounter(m.text), 0)),
        );
        expect(peak + 400).toBeLessThanOrEqual(4_000); // every map request fits with its 400-token reservation
        expect(res.mapreduce?.audits.at(-1)?.ok).toBe(true);
      } else {
        expect(fake.requests.map((r) => r.stage)).toEqual(['one-shot']);
      }
    });
  }

  it('sequential and parallel MapReduce install the same view from the same requests', async () => {
    const seq = await compact(4_000, { concurrency: 1 });
    const par = await compact(4_000, { concurrency: 4 });
    expect(par.res.view).toEqual(seq.res.view);
    expect(par.res.mapreduce).toEqual(seq.res.mapreduce);
    expect(par.fake.requests.map((r) => r.label).sort()).toEqual(seq.fake.requests.map((r) => r.label).sort());
    expect(par.fake.maxInFlight).toBeLessThanOrEqual(4);
  });
});
