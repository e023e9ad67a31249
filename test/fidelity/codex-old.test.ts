import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ScenarioComparison, compareLog } from '../../src/main/fidelity/compare';
import { bodyJson, readCaptured } from '../../src/main/mock/record';

/*
 * The logs Codex 0.47 and 0.59 wrote against the mock (fixtures/fidelity/logs), compared with the
 * requests they sent: these versions write a call's usage before its output items, and compact by
 * rebuilding the history (no replacement_history in the log).
 */

const ROOT = 'fixtures/fidelity/logs';

async function compare(version: string, scenario: string): Promise<ScenarioComparison> {
  const dir = join(ROOT, `codex-${version}`, scenario);
  const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { mainLog: string };
  const { requests } = readCaptured(join(dir, 'captured.jsonl'));
  return compareLog({
    client: 'codex',
    version,
    scenario,
    covers: [],
    captured: requests,
    mainLog: join(dir, run.mainLog),
    runProblems: [],
  });
}

/** The first input message's text of a captured request. */
function firstText(dir: string, seq: number): string {
  const c = readCaptured(join(dir, 'captured.jsonl')).requests.find((r) => r.seq === seq);
  const body = (c ? bodyJson(c) : null) as { input?: { content?: { text?: string }[] }[] } | null;
  return body?.input?.[0]?.content?.[0]?.text ?? '';
}

/** Logged requests per branch, every one paired with a wire request or left over. */
function perBranch(c: ScenarioComparison): Record<string, number> {
  const out: Record<string, number> = {};
  const seen = new Set<string>();
  for (const v of [...c.requests.map((r) => r.view), ...c.unpairedViews]) {
    if (!v || seen.has(`${v.branch}/${v.id}`)) continue;
    seen.add(`${v.branch}/${v.id}`);
    out[v.branch] = (out[v.branch] ?? 0) + 1;
  }
  return out;
}

describe.each(['0.47.0', '0.59.0'])('Codex %s', (version) => {
  it('tools-resume: one logged request per wire request, parallel calls of one round in one request', async () => {
    const c = await compare(version, 'tools-resume');
    expect(c.unpairedViews).toEqual([]);
    expect(perBranch(c)).toEqual({ main: 5 });
    expect(c.requests.map((r) => [r.seq, r.view?.index, r.verdict, r.messages?.status])).toEqual(
      [0, 1, 2, 3, 4].map((i) => [i, i, 'unknown', 'match']),
    );
  });
});

describe.each(['0.47.0', '0.59.0'])('Codex %s, a local compaction', (version) => {
  it.each([
    ['auto-compact', 5],
    ['compact-http-500', 6],
  ])('%s: each wire request paired, the history after the compaction as sent', async (scenario, logged) => {
    const c = await compare(version, scenario);
    expect(c.unpairedViews).toEqual([]);
    expect(perBranch(c)).toEqual({ main: logged });
    expect(c.requests.filter((r) => r.verdict === 'not-in-log' || r.verdict === 'mismatch')).toEqual([]);
    // Every agent request's messages are what was sent; the summarizer's instruction is not logged.
    for (const r of c.requests)
      expect([r.seq, r.messages?.status]).toEqual([r.seq, r.view?.purpose === 'compaction' ? 'unknown' : 'match']);
    // The first request after the compaction starts with the initial context, as on the wire.
    const compaction = c.requests.findIndex((r) => r.view?.purpose === 'compaction');
    const after = c.requests.slice(compaction).find((r) => r.view?.purpose === 'agent');
    expect(after?.messages?.status).toBe('match');
    expect(firstText(join(ROOT, `codex-${version}`, scenario), after?.seq ?? -1)).toMatch(/^<environment_context>/);
  });
});
