import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../src/shared/model/diagnostic';
import { VERIFIED_VERSIONS } from '../../src/shared/compat/versions';
import { SessionInspector } from '../../src/main/session/inspector';
import { loadSession } from '../../src/main/session/load';
import { type CapturedRequest, bodyJson, readCaptured } from '../../src/main/mock/record';
import { compareSaved, plantWhere } from './saved-claude';

/*
 * Claude Code log shapes that no other saved run has, each on a log the real client wrote against
 * the mock (fixtures/fidelity/logs/claude-code-<version>/<scenario>, their scenario files say how
 * the client was driven into them): what the importer and the rules make of them, and what the
 * comparison with the wire says.
 */

const LOGS = 'fixtures/fidelity/logs';

type Line = Record<string, unknown>;

function mainLog(version: string, scenario: string): string {
  const dir = join(LOGS, `claude-code-${version}`, scenario);
  const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { mainLog: string };
  return join(dir, run.mainLog);
}

function lines(path: string): Line[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Line);
}

const attachmentType = (l: Line): string | undefined =>
  l.type === 'attachment' ? ((l.attachment as { type?: string } | undefined)?.type ?? '?') : undefined;

async function diagnostics(version: string, scenario: string): Promise<Diagnostic[]> {
  const ins = new SessionInspector(await loadSession(mainLog(version, scenario)));
  try {
    await ins.loadRuleTexts();
    return [...ins.diagnostics()];
  } finally {
    await ins.session.dispose();
  }
}

describe('todo_reminder attachments (todo-reminder)', () => {
  it('2.1.332: the reminder is known content, and every request rebuilds exactly', async () => {
    const log = lines(mainLog('2.1.332', 'todo-reminder'));
    expect(log.map(attachmentType)).toContain('todo_reminder');
    const found = await diagnostics('2.1.332', 'todo-reminder');
    const unknown = found.find((d) => d.rule === 'UNKNOWN_FIELDS')?.message ?? '';
    expect(unknown).not.toContain('"?"');
    expect(unknown).not.toContain('todo_reminder');
    const requests = await compareSaved('2.1.332', 'todo-reminder');
    expect(requests.length).toBe(17);
    expect(requests.map((r) => r.verdict)).toEqual(requests.map(() => 'match'));
  });

  it('2.1.332: a reminder sent again while its first copy is in the conversation is a message of its own', async () => {
    // Every five tool calls the client sends the same silent_turn_reminder; its blob is written
    // once, and the later requests name its hash twice.
    const log = lines(mainLog('2.1.332', 'todo-reminder'));
    const silent = log.filter((l) => attachmentType(l) === 'silent_turn_reminder');
    expect(silent.length).toBe(3);
    const texts = new Set(silent.map((l) => JSON.stringify((l.attachment as { text?: unknown }).text)));
    expect(texts.size).toBe(1);
    const found = await diagnostics('2.1.332', 'todo-reminder');
    expect(found.map((d) => d.rule)).not.toContain('CC_API_REQUEST_UNRESOLVED');
  });

  it('2.1.97: the reminder has no rendered text; the result it is appended to on the wire is unknown, not a mismatch', async () => {
    const log = lines(mainLog('2.1.97', 'todo-reminder'));
    const reminder = log.find((l) => attachmentType(l) === 'todo_reminder');
    expect(reminder?.attachment).toEqual({ type: 'todo_reminder', content: [], itemCount: 0 });
    expect(reminder?.rendered).toBeUndefined();
    const found = await diagnostics('2.1.97', 'todo-reminder');
    expect(found.find((d) => d.rule === 'UNKNOWN_FIELDS')?.message ?? '').not.toContain('"?"');
    const requests = await compareSaved('2.1.97', 'todo-reminder');
    expect(requests.map((r) => r.verdict)).not.toContain('mismatch');
    const after = requests.filter((r) => (r.messages?.why ?? '').includes('attachment:todo_reminder'));
    // Every request from the one after the reminder on (five more tool calls, the answer, the next turn).
    expect(after.length).toBe(7);
    for (const r of after) expect(r.messages?.why).toContain('appended to the tool result before it');
  });
});

describe('a local command echoed before a compaction (local-command-compact)', () => {
  /** Whether the wire request answered by step `label` carries the /context echo. */
  const sends = (version: string, label: string): boolean => {
    const dir = join(LOGS, `claude-code-${version}`, 'local-command-compact');
    const c = readCaptured(join(dir, 'captured.jsonl')).requests.find((r) => r.answer.label === label);
    expect(c, label).toBeDefined();
    return JSON.stringify(bodyJson(c as CapturedRequest)).includes('<command-name>/context</command-name>');
  };

  it.each(['2.1.97', '2.1.332'])('%s: the /context echo is logged before the boundary and is no pending request', async (version) => {
    const log = lines(mainLog(version, 'local-command-compact'));
    const boundary = log.findIndex((l) => l.type === 'system' && l.subtype === 'compact_boundary');
    const before = log.slice(0, boundary).map((l) => JSON.stringify(l.message ?? l.content ?? ''));
    expect(before.some((t) => t.includes('<local-command-caveat>'))).toBe(true);
    expect(before.some((t) => t.includes('<command-name>/context</command-name>'))).toBe(true);
    const found = await diagnostics(version, 'local-command-compact');
    expect(found.map((d) => d.rule)).not.toContain('PENDING_USER_SUMMARISED');
  });

  it('2.1.97: the echo is in neither the summarizer call nor the request after it: it is gone with the boundary', async () => {
    expect(sends('2.1.97', 'summarizer')).toBe(false);
    expect(sends('2.1.97', 'after-compact')).toBe(false);
    const requests = await compareSaved('2.1.97', 'local-command-compact');
    expect(requests.map((r) => r.verdict)).not.toContain('mismatch');
  });

  it('2.1.332: the echo stays out of the summarizer call and is sent after the summary, as the view has it', async () => {
    expect(sends('2.1.332', 'summarizer')).toBe(false);
    expect(sends('2.1.332', 'after-compact')).toBe(true);
    const requests = await compareSaved('2.1.332', 'local-command-compact');
    expect(requests.filter((r) => r.verdict !== 'not-in-log').map((r) => r.verdict)).toEqual(['match', 'match', 'match']);
  });
});

describe('the automatic compaction trigger per version and model (auto-compact-trigger)', () => {
  it.each([
    ['2.1.9', 'claude-sonnet-4-5-20250929', 153_000, 157_000],
    ['2.1.97', 'claude-sonnet-4-6', 165_000, 169_000],
  ])('%s: the version table brackets where %s compacted on the wire', (version, model, below, at) => {
    const row = VERIFIED_VERSIONS.find((v) => v.client === 'claude-code' && v.version === version);
    expect(row?.autoCompact).toContainEqual({ model, below, at });
    const log = lines(mainLog(version, 'auto-compact-trigger'));
    const boundaries = log.filter((l) => l.type === 'system' && l.subtype === 'compact_boundary');
    expect(boundaries.map((b) => (b.compactMetadata as { trigger?: string }).trigger)).toEqual(['auto']);
  });

  it('2.1.97: the real run compacted where the table says, so nothing is missed', async () => {
    const found = await diagnostics('2.1.97', 'auto-compact-trigger');
    expect(found.map((d) => d.rule)).not.toContain('TRIGGER_MISSED');
  });

  it('2.1.97: the same log with its compaction cut out misses the trigger, and says which one it used', async () => {
    // The boundary and the summary after it removed: the third turn goes on at the size that made
    // the real client compact. The log names no window, so only the version table can judge it.
    const dir = mkdtempSync(join(tmpdir(), 'cc-trigger-'));
    try {
      const log = lines(mainLog('2.1.97', 'auto-compact-trigger'));
      const cut = log.filter((l) => !(l.type === 'system' && l.subtype === 'compact_boundary') && l.isCompactSummary !== true);
      const path = join(dir, 'session.jsonl');
      writeFileSync(path, `${cut.map((l) => JSON.stringify(l)).join('\n')}\n`);
      const ins = new SessionInspector(await loadSession(path));
      try {
        const miss = ins.diagnostics().filter((d) => d.rule === 'TRIGGER_MISSED');
        expect(miss.length).toBe(1);
        expect(miss[0]?.message).toContain('169,000 tokens at which Claude Code 2.1.97 with claude-sonnet-4-6 compacted automatically');
        expect(miss[0]?.message).toContain('it sent 165,000 uncompacted');
      } finally {
        await ins.session.dispose();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('summarizer files (agent-acompact-*): no headless client writes one', () => {
  // 2.1.9 calls the summarizer without a forked agent; 2.1.97, 2.1.197 and 2.1.332 fork it with
  // skipTranscript set, so no run of the matrix has such a file, and the copies it makes of the
  // conversation stay pinned on records built by hand (test/main/importers/claude-code). The real
  // 2.1.39 summarizer files of fixtures/claude-code and the corpus hold only the summarizer call.
  it('no saved run of the matrix has one', () => {
    const runs = readdirSync(LOGS).filter((d) => d.startsWith('claude-code-'));
    for (const v of runs)
      for (const s of readdirSync(join(LOGS, v))) {
        const run = JSON.parse(readFileSync(join(LOGS, v, s, 'run.json'), 'utf8')) as { logs: string[] };
        expect(
          run.logs.filter((l) => l.includes('acompact')),
          `${v}/${s}`,
        ).toEqual([]);
      }
  });
});

describe('a microcompact (microcompact)', () => {
  // 2.1.9 clears old tool results before a call when the last reply reported more than its warning
  // threshold and the results pass its budget; headless it logs no microcompact_boundary (its print
  // mode writes only user, assistant and compact_boundary messages), so only the wire shows it.
  const dir = join(LOGS, 'claude-code-2.1.9', 'microcompact');

  it('2.1.9: the wire cleared the four oldest results in one call; the log records neither the clearing nor the reminder', () => {
    const log = lines(mainLog('2.1.9', 'microcompact'));
    expect(log.some((l) => l.subtype === 'microcompact_boundary' || l.type === 'attachment')).toBe(false);
    const results = log.flatMap((l) =>
      l.type === 'user' && Array.isArray((l.message as { content?: unknown }).content)
        ? ((l.message as { content: { type?: string; content?: unknown }[] }).content.filter((b) => b.type === 'tool_result') as {
            content?: unknown;
          }[])
        : [],
    );
    expect(results.length).toBe(9);
    for (const r of results) expect(String(r.content).length).toBeGreaterThan(28_000);
    const wire = readCaptured(join(dir, 'captured.jsonl')).requests;
    const cleared = (label: string): number => {
      const c = wire.find((r) => r.answer.label === label);
      const body = bodyJson(c as CapturedRequest) as { messages: { content: unknown }[] };
      return JSON.stringify(body.messages).split('Tool result saved to: ').length - 1;
    };
    expect(cleared('dump-9')).toBe(0);
    expect(cleared('turn1-final')).toBe(4);
    const turn2 = wire.find((r) => r.answer.label === 'turn2');
    expect(JSON.stringify(bodyJson(turn2 as CapturedRequest))).toContain("The TodoWrite tool hasn't been used recently");
  });

  it('2.1.9: the comparison leaves the cleared results and the reminder unknown, with the rules that explain them', async () => {
    // The importer applies the client's rule (src/main/importers/claude-code/unlogged.ts): the four
    // results are masked by the harness (the note's path is not in the log), and after the resume
    // they are named as maybe cleared and the reminder as added to the prompt's message.
    const requests = await compareSaved('2.1.9', 'microcompact');
    const after = requests.find((r) => r.label === 'turn1-final');
    expect(after?.verdict).toBe('unknown');
    expect(after?.messages).toMatchObject({
      status: 'unknown',
      why: expect.stringContaining('cleared 4 tool results before this request (microcompact'),
    });
    const turn2 = requests.find((r) => r.label === 'turn2');
    expect(turn2?.verdict).toBe('unknown');
    expect(turn2?.messages).toMatchObject({ status: 'unknown', why: expect.stringContaining('may have cleared these tool results') });
    expect(turn2?.messages).toMatchObject({ status: 'unknown', why: expect.stringContaining('adds a todo reminder') });
    expect(requests.filter((r) => r.verdict === 'mismatch')).toEqual([]);
  });

  it('2.1.9: a real difference next to them is still a mismatch', async () => {
    // dump-5's result is not cleared on the wire: changing it there is a difference the rule does not explain.
    const edit = plantWhere(
      (_b, c) => c.answer.label === 'turn1-final',
      (body) => {
        const m = body.messages[10] as { content: { content: string }[] };
        const first = m.content[0];
        if (first) first.content = first.content.replace('dump-5-start', 'dump-5-START');
      },
    );
    const after = (await compareSaved('2.1.9', 'microcompact', edit)).find((r) => r.label === 'turn1-final');
    expect(after?.verdict).toBe('mismatch');
    // The prompt after the reminder is still compared.
    const prompt = plantWhere(
      (_b, c) => c.answer.label === 'turn2',
      (body) => {
        const m = body.messages[20] as { content: { text?: string }[] };
        const last = m.content.at(-1);
        if (last?.text !== undefined) last.text = 'What did the second dump print?';
      },
    );
    const turn2 = (await compareSaved('2.1.9', 'microcompact', prompt)).find((r) => r.label === 'turn2');
    expect(turn2?.verdict).toBe('mismatch');
  });
});
