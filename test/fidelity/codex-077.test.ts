import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareLog } from '../../src/main/fidelity/compare';
import { compareRecorded } from '../../src/main/fidelity/recorded';
import { readCaptured } from '../../src/main/mock/record';
import { eventsOfKind } from '../../src/shared/model/event-log';
import { SessionInspector } from '../../src/main/session/inspector';
import { loadSession } from '../../src/main/session/load';

/*
 * The logs Codex 0.77 wrote against the mock (fixtures/fidelity/logs) when it compacts in the
 * middle of a turn. Its compaction task logs a turn_context, then the summarizer's usage, then
 * its own estimate of the new history, and only then `compacted`: the usage is the summarizer's,
 * not a model call of its own, and the context it compacted is the tool call's (80,020 tokens);
 * the estimate is the new history's size.
 */

const DIR = 'fixtures/fidelity/logs/codex-0.77.0';

interface Run {
  readonly dir: string;
  readonly mainLog: string;
  readonly captures: string[];
}

function run(scenario: string): Run {
  const dir = join(DIR, scenario);
  const r = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { mainLog: string; captures: string[] };
  return { dir, mainLog: join(dir, r.mainLog), captures: r.captures.map((c) => join(dir, c)) };
}

describe.each([
  ['auto-compact', 4, 1, 7109],
  ['compact-http-500', 7, 3, 7100],
])('Codex 0.77 %s: a compaction in the middle of a turn', (scenario, wire, attempts, post) => {
  it('has one logged request per wire request, and no request Codex never sent', async () => {
    const r = run(scenario);
    const { requests } = readCaptured(join(r.dir, 'captured.jsonl'));
    const c = await compareLog({
      client: 'codex',
      version: '0.77.0',
      scenario,
      covers: [],
      captured: requests,
      mainLog: r.mainLog,
      runProblems: [],
    });
    expect(c.unpairedViews).toEqual([]);
    expect(c.requests).toHaveLength(wire);
    expect(c.requests.filter((q) => q.verdict === 'not-in-log' || q.verdict === 'mismatch')).toEqual([]);
    expect(c.requests.filter((q) => q.view?.purpose === 'compaction')).toHaveLength(attempts);
  });

  it('gives the summarizer its usage and the compaction the size it compacted', async () => {
    const ins = new SessionInspector(await loadSession(run(scenario).mainLog));
    const events = ins.session.events;
    const reqs = [...eventsOfKind(events, 'request')];
    expect(reqs.map((e) => e.purpose)).toEqual(['agent', 'compaction', ...Array<string>(reqs.length - 2).fill('agent')]);
    const summarizer = [...eventsOfKind(events, 'response')].find((e) => e.request === reqs[1]?.id);
    expect(summarizer?.usage).toMatchObject({ context: 4000 });
    const start = [...eventsOfKind(events, 'compaction/start')];
    const end = [...eventsOfKind(events, 'compaction/end')];
    expect(start.map((e) => e.preTokens)).toEqual([80020]);
    expect(end.map((e) => e.postTokens)).toEqual([post]);
    expect(ins.diagnostics().filter((d) => d.rule === 'CODEX_USAGE_WITHOUT_OUTPUT')).toEqual([]);
  });

  it('reports no warning or error, from the log alone or joined with the capture', async () => {
    const r = run(scenario);
    const { requests } = readCaptured(join(r.dir, 'captured.jsonl'));
    const rec = await compareRecorded(r.mainLog, requests, r.captures, 'responses');
    expect(rec.error).toBeNull();
    expect(rec.findingsLogOnly).toEqual([]);
    expect(rec.findingsJoined).toEqual([]);
    expect(rec.exact).toBe(rec.wire);
    expect(rec.failedJoined).toBe(rec.failedOnWire);
  });
});
