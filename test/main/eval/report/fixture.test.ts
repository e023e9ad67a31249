import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { findCell } from '../../../../src/shared/eval/aggregate';
import { checkThresholds } from '../../../../src/shared/eval/thresholds';
import { evaluate, Haystack } from '../../../../src/shared/eval/matchers';
import { parseFacts } from '../../../../src/shared/eval/facts';
import { parseSpec } from '../../../../src/shared/eval/spec';
import { blocksText } from '../../../../src/shared/strategies/common/render';
import { resolveSource } from '../../../../src/main/rerun/source';
import { SessionInspector } from '../../../../src/main/session/inspector';
import { loadSession } from '../../../../src/main/session/load';
import { reportHtml, reportMarkdown, type ReportInput } from '../../../../src/main/eval/report';
import { runSpec, type PipelineResult } from './pipeline';

/*
 * The example of fixtures/eval/ end to end, on the real traces: the hand-written facts hold in the
 * history they cite, the spec's clean cells run and score, its thresholds pass, and the reports
 * render. Fault cells need the mock provider on the wire and are the runner's tests.
 */

const SPECS = ['fixtures/eval/claude-code.spec.yaml', 'fixtures/eval/dsh.spec.yaml'];

describe('the hand-written facts', () => {
  for (const specPath of SPECS) {
    it(`each confirmed fact of ${specPath} matches the source items it cites`, async () => {
      const spec = parseSpec(YAML.parse(readFileSync(specPath, 'utf8')), specPath);
      if (!spec.ok) throw new Error(spec.error);
      for (const t of spec.value.traces) {
        const factsPath = join('fixtures/eval', t.facts as string);
        const facts = parseFacts(YAML.parse(readFileSync(factsPath, 'utf8')), factsPath);
        if (!facts.ok) throw new Error(facts.error);
        const session = await loadSession(join('fixtures/eval', t.path));
        try {
          const ins = new SessionInspector(session);
          const targets = t.targets === 'compactions' ? ins.replay().compactions.map((c) => ({ compaction: c.id })) : t.targets;
          for (const target of targets) {
            const src = await resolveSource(ins, target);
            if (!src.ok) throw new Error(src.error);
            for (const f of facts.value.facts) {
              const ids = new Set(f.source?.items ?? []);
              const seqs = f.source?.seqs;
              const cited = src.source.view.items.filter(
                (i) => ids.has(i.id) || (seqs !== undefined && i.seq !== null && i.seq >= seqs.from && i.seq <= seqs.to),
              );
              expect(cited.length, `${f.id} cites items of this source`).toBe(
                (f.source?.items?.length ?? 0) + (seqs ? cited.filter((i) => !ids.has(i.id)).length : 0),
              );
              expect(evaluate(f.match, new Haystack(cited.map((i) => blocksText(i.blocks)))).matched, `${f.id} matches what it cites`).toBe(
                true,
              );
            }
          }
        } finally {
          await session.dispose();
        }
      }
    });
  }
});

describe('fixtures/eval/claude-code.spec.yaml (clean cells, in process)', () => {
  let r: PipelineResult;
  beforeAll(async () => {
    r = await runSpec(SPECS[0] as string);
  }, 120_000);

  it('runs every clean cell: the baselines once, the model strategies per mock model and repeat', () => {
    const count = (s: string) => r.runs.filter((x) => x.cell.strategy === s).length;
    expect([count('truncate'), count('clear-tools'), count('extractive'), count('one-shot'), count('layered')]).toEqual([1, 1, 1, 4, 4]);
  });

  it('meets its own thresholds', () => {
    expect(checkThresholds(r.aggregate, r.spec.thresholds)).toEqual([]);
  });

  it("scores the harness's own summary as the facts say: everything but the routes and the not-found decision", () => {
    const c = findCell(r.aggregate, 'one-shot', 'mock:replay-original');
    expect(c?.quality.recall?.mean).toBeCloseTo(26 / 28);
    expect(Object.keys(c?.missed ?? {}).sort()).toEqual([
      '../claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl::cc-c6',
      '../claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl::cc-d5',
    ]);
    expect(c?.quality.staleRejection?.mean).toBe(1);
    expect(c?.quality.recall?.stddev).toBe(0);
  });

  it('shows what the baselines lose: clearing tool results drops the specifications and the provenance of test results', () => {
    const clear = findCell(r.aggregate, 'clear-tools', 'none');
    const extractive = findCell(r.aggregate, 'extractive', 'none');
    expect(clear?.quality.constraint?.mean ?? 1).toBeLessThan(0.5);
    expect(clear?.quality.provenance?.mean ?? 1).toBeLessThan(0.5);
    // The extractive summary copies obsolete lines (the 5-line cap, load_transcript) without marking them.
    expect(extractive?.quality.staleRejection?.mean ?? 1).toBeLessThan(1);
  });

  it('renders the reports from the real results', () => {
    const factIds = [...r.facts.entries()].flatMap(([trace, f]) =>
      f.facts.map((x) => ({ trace, id: x.id, category: x.category, text: x.text })),
    );
    const input: ReportInput = {
      spec: { name: r.spec.name, file: SPECS[0] as string },
      generatedAt: '2026-02-14T00:00:00Z',
      aggregate: r.aggregate,
      misses: [],
      comparison: null,
      facts: factIds,
    };
    const html = reportHtml(input);
    expect(html).toContain('one-shot');
    expect(html).toContain('The existing routes /sessions/:session_id and /sessions/:session_id/agents/:agent_id are preserved.');
    expect(html).not.toMatch(/<script/i);
    expect(reportMarkdown(input)).toMatch(/\| one-shot \| mock:replay-original \(mock\) \| 92\.9 % ± 0\.0 \|/);
  });
});

describe('fixtures/eval/dsh.spec.yaml (clean cells, in process)', () => {
  it("shows the harness's one-sentence summary keeping none of the fifteen premises", async () => {
    const r = await runSpec(SPECS[1] as string);
    const original = findCell(r.aggregate, 'one-shot', 'mock:replay-original');
    expect(original?.failures.count).toBe(0);
    expect(original?.quality.constraint?.mean).toBe(0);
    // The raw tail keeps the bash call, so the evidence survives; no decision or stale fact exists: null, not 1.
    expect(original?.quality.evidence?.mean).toBe(1);
    expect(original?.quality.decision).toBeNull();
    expect(original?.quality.staleRejection).toBeNull();
    const extractive = findCell(r.aggregate, 'one-shot', 'mock:extractive');
    expect(extractive?.quality.constraint?.mean ?? 0).toBeGreaterThan(0);
  }, 60_000);
});
