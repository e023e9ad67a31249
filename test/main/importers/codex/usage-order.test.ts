import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { knownUsageOrder } from '../../../../src/main/dialects/codex-usage-order';
import type { VerifiedVersion } from '../../../../src/shared/compat/types';
import { importValues, views } from './helpers';

/*
 * Codex up to the 0.6x line writes a call's token_count before its output items. Real rollouts of
 * the corpus: Codex 0.40 (a turn aborted after a tool ran) and 0.104 (usage after output).
 */

const OLD =
  'fixtures/corpus/codex/python-ai-solutions-agentic-neurodata-conversion/rollout-2025-09-26T17-01-04-019985ca-7ef7-7580-a921-c20ac619f40b.jsonl';
const NEW = 'fixtures/corpus/codex/madshn-localpush/rollout-2026-02-23T12-41-04-019c8a4d-8f45-7010-8b5d-7fad920aa6f9.jsonl';

const read = (path: string): Record<string, unknown>[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** The provider's usage reports, each once (a repeated total is the same report again), as written: line and context size. */
function reports(values: readonly Record<string, unknown>[]): { line: number; total: number }[] {
  const out: { line: number; total: number }[] = [];
  let prev = '';
  values.forEach((v, i) => {
    const p = v.payload as
      { type?: string; info?: { total_token_usage?: unknown; last_token_usage?: { total_tokens: number } } } | undefined;
    if (v.type !== 'event_msg' || p?.type !== 'token_count' || !p.info) return;
    const key = JSON.stringify(p.info.total_token_usage);
    if (key === prev) return;
    prev = key;
    out.push({ line: i + 1, total: p.info.last_token_usage?.total_tokens ?? -1 });
  });
  return out;
}

function calls(values: Record<string, unknown>[]) {
  const r = importValues(values, OLD.split('/').pop());
  const { state } = views(r);
  return state.requests.map((q) => ({
    line: r.events.find((e) => e.seq === q.seq)?.line,
    context: (q.usage?.input ?? 0) + (q.usage?.cacheRead ?? 0) + (q.usage?.output ?? 0),
    finish: q.finish?.reason ?? null,
  }));
}

describe('a rollout that writes usage before output (Codex 0.40)', () => {
  const values = read(OLD);
  const written = reports(values);

  it('has one request per usage report, each opened at the first output item after its report and carrying that report', () => {
    const got = calls(values);
    expect(got).toHaveLength(written.length);
    got.forEach((c, i) => {
      const report = written[i] as { line: number; total: number };
      expect(c.context).toBe(report.total);
      // The output items come right after their report (commentary events aside).
      expect(c.line).toBeGreaterThan(report.line);
      expect((c.line ?? 0) - report.line).toBeLessThanOrEqual(3);
    });
  });

  it('calls no completed call aborted: the turn was aborted after the tool ran', () => {
    const aborted = values.findIndex((v) => (v.payload as { type?: string } | undefined)?.type === 'turn_aborted') + 1;
    expect(aborted).toBeGreaterThan(0);
    expect(calls(values).filter((c) => c.finish === 'cancelled')).toEqual([]);
  });

  it('reads the same from the rollout itself when the version does not say', () => {
    const unversioned = values.map((v, i) => (i === 0 ? { ...v, payload: { ...(v.payload as object), cli_version: undefined } } : v));
    expect(calls(unversioned)).toEqual(calls(values));
  });
});

describe('a rollout that writes usage after output (Codex 0.104)', () => {
  it('keeps one request per usage report, closed by it', () => {
    const values = read(NEW);
    const written = reports(values);
    const r = importValues(values, NEW.split('/').pop());
    const { state } = views(r);
    expect(state.requests.map((q) => (q.usage?.input ?? 0) + (q.usage?.cacheRead ?? 0) + (q.usage?.output ?? 0))).toEqual(
      written.map((w) => w.total),
    );
  });
});

describe('knownUsageOrder', () => {
  it('reads the verified versions: their order, the order of the verified ones around, or the rollout where those differ', () => {
    // Verified on the wire: 0.47 and 0.59 usage first, 0.77 on after.
    expect(['0.34.0', '0.47.0', '0.58.0', '0.59.0'].map((v) => knownUsageOrder(v))).toEqual(Array(4).fill('before-output'));
    expect(['0.77.0', '0.104.0-alpha.1', '0.171.0', '1.0.0'].map((v) => knownUsageOrder(v))).toEqual(Array(4).fill('after-output'));
    // Between 0.59 and 0.77 (the corpus's 0.63 is there), and without a version: the rollout says.
    expect(['0.63.0', 'dev', undefined].map((v) => knownUsageOrder(v))).toEqual([null, null, null]);
  });

  it('puts a prerelease before its release: between two verified versions that differ, the rollout says', () => {
    const row = (version: string, usage: VerifiedVersion['usage']): VerifiedVersion => ({
      client: 'codex',
      version,
      scenarios: [],
      wireRequests: 0,
      systemInLog: 'unknown',
      toolsInLog: { found: 0, of: 0 },
      usage,
      compactionRecords: [],
      sideFiles: 'none',
      autoCompact: [],
    });
    const table = [row('0.103.0', 'before-output'), row('0.104.0', 'after-output')];
    expect(knownUsageOrder('0.104.0', table)).toBe('after-output');
    expect(knownUsageOrder('0.104.0-alpha.1', table)).toBeNull();
    expect(knownUsageOrder('0.103.1-alpha.1', table)).toBeNull();
    expect(knownUsageOrder('0.103.0-alpha.1', [row('0.103.0', 'before-output')])).toBe('before-output');
  });
});
