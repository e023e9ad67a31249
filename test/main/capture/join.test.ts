import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { attachCaptures, readCaptures } from '../../../src/main/capture/attach';
import { joinCaptures } from '../../../src/main/capture/join/join';
import { inspectJson } from '../../../src/main/present/json';
import { renderInspect } from '../../../src/main/present/text';
import { SessionInspector } from '../../../src/main/session/inspector';
import { loadSession } from '../../../src/main/session/load';
import { mockCalls } from './mock-calls';

async function joined(dir: string) {
  const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { mainLog: string };
  const ins = new SessionInspector(await loadSession(join(dir, run.mainLog)));
  try {
    return await joinCaptures(ins, [mockCalls(join(dir, 'captured.jsonl'))]);
  } finally {
    await ins.session.dispose();
  }
}

const row = (r: { source: string; purpose: string; status: number | null; retryOf: number | null; logIndex: number | null }) =>
  `${r.source} ${r.purpose} ${r.status ?? '-'}${r.retryOf === null ? '' : ` retry of ${r.retryOf}`}${r.logIndex === null ? '' : ` log #${r.logIndex}`}`;

describe('joining a capture to its session', () => {
  it('claude-code: HTTP 500 twice, then the summary — every attempt listed under the compaction', async () => {
    const j = await joined('fixtures/fidelity/logs/claude-code-2.1.332/compact-http-500');
    expect(j.requests.map(row)).toEqual([
      'both agent 200 log #0',
      'both agent 200 log #1',
      'wire summarizer 500',
      'wire summarizer 500 retry of 2',
      'wire summarizer 200 retry of 2',
      'both agent 200 log #2',
    ]);
    expect(j.compactions).toHaveLength(1);
    expect(j.compactions[0]?.attempts).toEqual([2, 3, 4]);
    expect(j.orphanAttempts).toEqual([]);
    expect(j.requests.filter((r) => r.source === 'both').every((r) => r.verdict === 'match')).toBe(true);
  });

  it('claude-code: 529 on every attempt — the log has no compaction, the attempts are an orphan run', async () => {
    const j = await joined('fixtures/fidelity/logs/claude-code-2.1.332/compact-overloaded');
    expect(j.compactions).toEqual([]);
    expect(j.orphanAttempts).toEqual([[2, 3, 4]]);
    expect(j.requests.slice(2, 5).map((r) => r.status)).toEqual([529, 529, 529]);
  });

  it('codex: the log records the summarizer call that succeeded; the two failed attempts before it come from the wire', async () => {
    const j = await joined('fixtures/fidelity/logs/codex-0.171.0/compact-http-500');
    expect(j.requests.map(row)).toEqual([
      'both agent 200 log #0',
      'both agent 200 log #1',
      'wire summarizer 500',
      'wire summarizer 500 retry of 2',
      'both summarizer 200 retry of 2 log #2',
      'both agent 200 log #3',
      'both agent 200 log #4',
    ]);
    expect(j.requests[2]?.purposeWhy).toBe('an earlier attempt of a logged request');
    expect(j.compactions.map((c) => c.attempts)).toEqual([[2, 3, 4]]);
    expect(j.orphanAttempts).toEqual([]);
  });

  it('a token-counting call is a side call of its own, not an attempt of anything', async () => {
    const dir = 'fixtures/fidelity/logs/claude-code-2.1.332/tools-resume';
    const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { mainLog: string };
    const ins = new SessionInspector(await loadSession(join(dir, run.mainLog)));
    try {
      const { capture, calls } = mockCalls(join(dir, 'captured.jsonl'));
      const first = calls[0] as (typeof calls)[number];
      const count = {
        ...first,
        kind: 'count-tokens' as const,
        responseId: null,
        exchange: { ...first.exchange, index: calls.length, path: '/v1/messages/count_tokens', startedAt: first.exchange.startedAt + 1 },
      };
      const j = await joinCaptures(ins, [{ capture, calls: [first, count, ...calls.slice(1)] }]);
      expect(j.requests.map((r) => `${r.source} ${r.purpose}`)).toEqual([
        'both agent',
        'wire side',
        'both agent',
        'both agent',
        'both agent',
        'both agent',
      ]);
      expect(j.requests[1]?.purposeWhy).toBe('a token-counting call');
      expect(j.orphanAttempts).toEqual([]);
    } finally {
      await ins.session.dispose();
    }
  });

  it('a healthy session: every wire request is a logged one, nothing is wire-only', async () => {
    const j = await joined('fixtures/fidelity/logs/claude-code-2.1.332/tools-resume');
    expect(j.requests.every((r) => r.source === 'both' && r.purpose === 'agent')).toBe(true);
    expect(j.requests.map((r) => r.logIndex)).toEqual([0, 1, 2, 3, 4]);
  });
});

describe('joining the captures palimpsest record wrote', () => {
  it("one turn's capture alone: its summarizer attempts never stand for the logged agent requests, and fall where they happened", async () => {
    const dir = 'fixtures/fidelity/recorded/claude-code-2.1.332/compact-overloaded';
    const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { mainLog: string };
    const ins = new SessionInspector(await loadSession(join(dir, run.mainLog)));
    try {
      const j = await attachCaptures(ins, await readCaptures([join(dir, 'capture-2.jsonl')]));
      expect(j?.requests.map(row)).toEqual([
        'log agent - log #0',
        'log agent - log #1',
        'wire summarizer 529',
        'wire summarizer 529 retry of 2',
        'wire summarizer 529 retry of 2',
        'log agent - log #2',
      ]);
      expect(j?.orphanAttempts).toEqual([[2, 3, 4]]);
    } finally {
      await ins.session.dispose();
    }
  });
});

describe('a capture with a line that cannot be read', () => {
  it('joins the rest, and inspect names the file, line and reason of the skipped one', async () => {
    const dir = 'fixtures/fidelity/recorded/claude-code-2.1.332/compact-overloaded';
    const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { mainLog: string };
    const tmp = mkdtempSync(join(tmpdir(), 'palimpsest-join-'));
    const bad = join(tmp, 'capture-2.jsonl');
    const lines = readFileSync(join(dir, 'capture-2.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    writeFileSync(bad, `${[...lines.slice(0, 2), '{"type":"exchange", cut here', ...lines.slice(2)].join('\n')}\n`);
    const ins = new SessionInspector(await loadSession(join(dir, run.mainLog)));
    try {
      await attachCaptures(ins, await readCaptures([bad]));
      await ins.loadRuleTexts();
      const j = inspectJson(run.mainLog, ins);
      expect(j.captures[0]).toMatchObject({ file: bad, skipped: 1, skippedLines: [{ line: 3 }] });
      expect(j.unloggedAttempts).toEqual([[2, 3, 4]]);
      expect(renderInspect(j)).toContain(`${bad}:3: skipped: `);
    } finally {
      await ins.session.dispose();
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
