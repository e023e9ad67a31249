import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parallelDropWhy } from '../../../../src/main/dialects/claude-resume';
import { parallelCallsAtRisk } from '../../../../src/shared/replay/parallel-calls';
import { SessionInspector } from '../../../../src/main/session/inspector';
import { loadSession } from '../../../../src/main/session/load';
import { importValues } from './helpers';

/*
 * tools-resume of the saved real runs: a Bash call, two parallel Bash calls, then a third turn
 * after `--resume`. Claude Code before 2.1.97 sends, after a reload, only the parallel call
 * answered last and its result; the log does not say whether it reloaded, so the view of every
 * request after that turn names the other call among its unknowns. 2.1.97 and later send both:
 * nothing to name.
 */

const LOGS = 'fixtures/fidelity/logs';
const mainLog = (version: string): string => {
  const dir = join(LOGS, `claude-code-${version}`, 'tools-resume');
  return join(dir, (JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { mainLog: string }).mainLog);
};

/** Each request's unknowns, and the parallel calls its items hold that a reload would leave out. */
async function viewsOf(path: string): Promise<{ unknowns: string[]; atRisk: string[] }[]> {
  const session = await loadSession(path);
  try {
    const ins = new SessionInspector(session);
    const n = ins.replay().requests.length;
    const out: { unknowns: string[]; atRisk: string[] }[] = [];
    for (let i = 0; i < n; i++) {
      const v = await ins.fullView(i);
      out.push({ unknowns: [...(v?.unknowns ?? [])], atRisk: [...parallelCallsAtRisk(v?.items ?? [])] });
    }
    return out;
  } finally {
    await session.dispose();
  }
}

const RELOAD = /^messages: after a reload/;
const reloadOf = (u: readonly string[]): string[] => u.filter((x) => RELOAD.test(x));

/** The call the other result answers (the mock's ids: turn, then position in the response). */
const OTHER_CALL = { '2.0.77': 'toolu_mock_9_0', '2.1.9': 'toolu_mock_3_0' } as const;

describe('the view names what a reload of old Claude Code may have left out', () => {
  for (const version of ['2.0.77', '2.1.9'] as const) {
    it(`${version}: in the request after the resumed turn, with the call's id; not before`, async () => {
      const all = (await viewsOf(mainLog(version))).map((v) => v.unknowns);
      expect(all).toHaveLength(5);
      // Requests 0-3: the first turn, the parallel calls, the answer to both results: no later turn yet.
      for (const u of all.slice(0, 4)) expect(reloadOf(u)).toEqual([]);
      expect(reloadOf(all[4] ?? [])).toEqual([`messages: ${parallelDropWhy(version)} (calls: ${OTHER_CALL[version]})`]);
    });
  }

  for (const version of ['2.1.97', '2.1.332']) {
    it(`${version}: names nothing, though the last request holds such calls`, async () => {
      const all = await viewsOf(mainLog(version));
      expect(all).toHaveLength(5);
      for (const v of all) expect(reloadOf(v.unknowns)).toEqual([]);
      // It is the version that puts them back, not a view without parallel calls.
      expect(all[4]?.atRisk).toHaveLength(1);
    });
  }
});

describe('a session resumed by a client on the other side of 2.1.97', () => {
  const lines = readFileSync(mainLog('2.1.9'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  /** The log with the lines from `from` on (the resumed third turn: line 15) written by `later`. */
  const mixed = (first: string, later: string, from = 15): Record<string, unknown>[] =>
    lines.map((v, i) => (typeof v.version === 'string' ? { ...v, version: i + 1 >= from ? later : first } : v));

  it('stops naming it once a record of 2.1.97 is on the branch', () => {
    const s = importValues(mixed('2.1.9', '2.1.97'));
    const changes = s.of('header').filter((h) => h.reloadMayDrop !== undefined);
    expect(changes.map((h) => [h.line, h.reloadMayDrop])).toEqual([
      [2, parallelDropWhy('2.1.9')],
      [15, null],
    ]);
    expect(s.replay().requests).toHaveLength(5);
    for (let i = 0; i < 5; i++) expect(reloadOf(s.view(i).unknowns)).toEqual([]);
  });

  it('starts naming it once a record before 2.1.97 is on the branch', () => {
    const s = importValues(mixed('2.1.97', '2.1.9'));
    expect(
      s
        .of('header')
        .filter((h) => h.reloadMayDrop !== undefined)
        .map((h) => [h.line, h.reloadMayDrop]),
    ).toEqual([[15, parallelDropWhy('2.1.9')]]);
    expect(reloadOf(s.view(4).unknowns)).toEqual([`messages: ${parallelDropWhy('2.1.9')} (calls: toolu_mock_3_0)`]);
  });

  it('names nothing for a session of one version from 2.1.97 on', () => {
    const s = importValues(mixed('2.1.97', '2.1.97'));
    expect(s.of('header').filter((h) => h.reloadMayDrop !== undefined)).toEqual([]);
    expect(reloadOf(s.view(4).unknowns)).toEqual([]);
    expect([...parallelCallsAtRisk(s.view(4).items)]).toEqual(['toolu_mock_3_0']);
  });
});
