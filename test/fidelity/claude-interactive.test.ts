import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SessionInspector } from '../../src/main/session/inspector';
import { loadSession } from '../../src/main/session/load';
import { type CapturedRequest, bodyJson, readCaptured } from '../../src/main/mock/record';
import { compareSaved } from './saved-claude';

/*
 * Claude Code log shapes only an interactive session writes, on logs the real clients wrote when
 * the fidelity suite typed the turns into them in a terminal (`interactive` scenarios,
 * src/main/fidelity/run-interactive.ts): the microcompact_boundary record, and a local command's
 * echo left unanswered before a compaction.
 */

const LOGS = 'fixtures/fidelity/logs';

type Line = Record<string, unknown>;

function runDir(version: string, scenario: string): string {
  return join(LOGS, `claude-code-${version}`, scenario);
}

function mainLog(version: string, scenario: string): string {
  const dir = runDir(version, scenario);
  return join(dir, (JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { mainLog: string }).mainLog);
}

const lines = (path: string): Line[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Line);

async function inspect<T>(path: string, f: (ins: SessionInspector) => T | Promise<T>): Promise<T> {
  const ins = new SessionInspector(await loadSession(path));
  try {
    await ins.loadRuleTexts();
    return await f(ins);
  } finally {
    await ins.session.dispose();
  }
}

describe('a microcompact in an interactive session (microcompact-interactive, 2.1.9)', () => {
  const log = (): Line[] => lines(mainLog('2.1.9', 'microcompact-interactive'));

  it('logs a microcompact_boundary naming exactly the results the wire cleared', () => {
    const boundaries = log().filter((l) => l.type === 'system' && l.subtype === 'microcompact_boundary');
    expect(boundaries).toHaveLength(1);
    const meta = boundaries[0]?.microcompactMetadata as { trigger: string; compactedToolIds: string[]; tokensSaved: number };
    expect(meta.trigger).toBe('auto');
    expect(meta.tokensSaved).toBeGreaterThan(20_000);
    // On the wire, the request answered by turn1-final carries each cleared result as a note.
    const wire = readCaptured(join(runDir('2.1.9', 'microcompact-interactive'), 'captured.jsonl')).requests;
    const after = wire.find((r) => r.answer.label === 'turn1-final');
    const body = bodyJson(after as CapturedRequest) as { messages: { content: unknown }[] };
    const noted = body.messages.flatMap((m) =>
      Array.isArray(m.content)
        ? (m.content as { type?: string; tool_use_id?: string; content?: unknown }[])
            .filter((b) => b.type === 'tool_result' && JSON.stringify(b.content).includes('Tool result saved to: '))
            .map((b) => b.tool_use_id)
        : [],
    );
    expect(noted.sort()).toEqual([...meta.compactedToolIds].sort());
  });

  it('the view masks those results from the request after the boundary on, and the wire agrees with it', async () => {
    const cleared = await inspect(mainLog('2.1.9', 'microcompact-interactive'), (ins) =>
      ins.replay().requests.map((_, i) => ins.fates(i).filter((f) => f.fate.fate === 'masked').length),
    );
    // Nine results; the four oldest masked once the boundary is written, none before.
    expect(cleared.slice(0, 9)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(cleared.slice(9)).toEqual([4, 4]);
    const requests = await compareSaved('2.1.9', 'microcompact-interactive');
    const after = requests.find((r) => r.label === 'turn1-final');
    expect(after?.verdict).not.toBe('mismatch');
  });

  it('names the todo reminder the wire carries and the interactive log still leaves out', async () => {
    // 2.1.9 logs its microcompact interactively, but no todo_reminder attachment: the request after
    // ten assistant messages without TodoWrite names the reminder as unknown rather than differing.
    expect(log().some((l) => l.type === 'attachment')).toBe(false);
    const requests = await compareSaved('2.1.9', 'microcompact-interactive');
    const turn2 = requests.find((r) => r.label === 'turn2');
    expect(turn2?.verdict).toBe('unknown');
    expect(requests.map((r) => r.verdict)).not.toContain('mismatch');
  });

  it('is one MID_HISTORY_MUTATION warning for the one microcompact, citing the cache the next request lost', async () => {
    const found = await inspect(mainLog('2.1.9', 'microcompact-interactive'), (ins) => [...ins.diagnostics()]);
    const mutation = found.filter((d) => d.rule === 'MID_HISTORY_MUTATION');
    expect(mutation).toHaveLength(1);
    expect(mutation[0]?.severity).toBe('warning');
    expect(mutation[0]?.message).toContain('masked 4 items');
    expect(found.filter((d) => d.severity === 'error')).toEqual([]);
  });
});

describe('a local command echoed before a compaction, typed (local-command-interactive)', () => {
  const beforeBoundary = (version: string): Line[] => {
    const log = lines(mainLog(version, 'local-command-interactive'));
    return log.slice(
      0,
      log.findIndex((l) => l.type === 'system' && l.subtype === 'compact_boundary'),
    );
  };
  const text = (l: Line): string => JSON.stringify(l.message ?? l.content ?? '');

  it('2.1.97: the /context echo is the last thing before the boundary, answered by nothing, and is no pending request', async () => {
    const before = beforeBoundary('2.1.97').filter((l) => l.type === 'user' || l.type === 'assistant');
    const last = before.slice(-3).map(text);
    expect(last[0]).toContain('<local-command-caveat>');
    expect(last[1]).toContain('<command-name>/context</command-name>');
    expect(last[2]).toContain('<local-command-stdout>');
    const found = await inspect(mainLog('2.1.97', 'local-command-interactive'), (ins) => [...ins.diagnostics()]);
    expect(found.map((d) => d.rule)).not.toContain('PENDING_USER_SUMMARISED');
    const requests = await compareSaved('2.1.97', 'local-command-interactive');
    expect(requests.map((r) => r.verdict)).not.toContain('mismatch');
  });

  it('2.1.332: the echo is logged as local_command records and a context report, and every request rebuilds exactly', async () => {
    const before = beforeBoundary('2.1.332');
    expect(
      before
        .filter((l) => l.type === 'system' && l.subtype === 'local_command')
        .map(text)
        .join(''),
    ).toContain('/context');
    const found = await inspect(mainLog('2.1.332', 'local-command-interactive'), (ins) => [...ins.diagnostics()]);
    expect(found.map((d) => d.rule)).not.toContain('PENDING_USER_SUMMARISED');
    const requests = await compareSaved('2.1.332', 'local-command-interactive');
    expect(requests.filter((r) => r.verdict !== 'not-in-log').map((r) => r.verdict)).toEqual(['match', 'match', 'match']);
  });

  it('2.1.9: /context leaves nothing in the log, interactive or not', () => {
    expect(beforeBoundary('2.1.9').map(text).join('')).not.toContain('/context');
  });
});
