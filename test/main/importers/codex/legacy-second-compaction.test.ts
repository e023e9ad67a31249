import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Block } from '../../../../src/shared/model/content';
import { SessionInspector } from '../../../../src/main/session/inspector';
import { loadSession } from '../../../../src/main/session/load';

/*
 * Codex 0.59 rebuilds the history after each compaction without replacement_history from the user
 * messages of the history before it, the first compaction's copies among them, but not the
 * summary it left (codex-rs core/src/compact.rs: `collect_user_messages` skips a message that
 * `is_summary_message`). Run against the mock, Codex 0.59.0 compacted twice in one turn and sent
 * after the second: the initial context, the first user message, the second summary. The rollout
 * here is the real 0.59 auto-compact one with a second compaction appended: its own lines from the
 * turn context before the first `compacted` to the reply after it, as Codex logged them then.
 */

const DAY = 'fixtures/fidelity/logs/codex-0.59.0/auto-compact/sessions/2026/12/02';
const FIRST = 'Print a greeting with the shell.';
const FOLLOW_UP = 'A follow-up question: what did the shell print?';
const SECOND = 'Checkpoint two: the greeting was printed and the follow-up answered.';

/** Longer than Codex keeps of the user messages (20,000 tokens of 4 bytes): each compaction cuts it. */
const HUGE = `${FIRST} ${'Then explain every step of what you did, in detail. '.repeat(1700)}`;

/** The rollout with a second compaction, its first user message replaced by `first`. */
function rollout(firstText = FIRST): string {
  const name = readdirSync(DAY).find((f) => f.endsWith('.jsonl')) as string;
  const lines = readFileSync(join(DAY, name), 'utf8')
    .split(JSON.stringify(FIRST))
    .join(JSON.stringify(firstText))
    .split('\n')
    .filter((l) => l !== '');
  const first = lines.findIndex((l) => JSON.parse(l).type === 'compacted');
  // From the turn context before the first compaction to the assistant reply after it.
  const start = lines.slice(0, first).findLastIndex((l) => JSON.parse(l).type === 'turn_context');
  const end = lines.findIndex((l, i) => i > first && JSON.parse(l).payload?.role === 'assistant');
  const again = lines.slice(start, end + 1).map((l) => {
    const v = JSON.parse(l);
    if (v.type !== 'compacted') return l;
    const message = (v.payload.message as string).replace(/\n[^\n]*$/, `\n${SECOND}`);
    return JSON.stringify({ ...v, payload: { ...v.payload, message } });
  });
  const path = join(mkdtempSync(join(tmpdir(), 'codex-twice-')), name);
  writeFileSync(path, `${[...lines, ...again].join('\n')}\n`);
  return path;
}

/** The texts of the user turns in a view (not context, not a summary). */
function texts(items: readonly { role: string; meta?: boolean; blocks: readonly Block[] | null }[]): string[] {
  return items.filter((i) => i.role === 'user' && i.meta !== true).map((i) => (i.blocks?.[0]?.type === 'text' ? i.blocks[0].text : '?'));
}

describe('a second Codex 0.59 compaction without replacement_history', () => {
  it('keeps the user messages the first one kept, not its summary', async () => {
    const ins = new SessionInspector(await loadSession(rollout()));
    const state = ins.replay();
    expect(state.compactions.map((c) => c.strategy)).toEqual([
      'local (rebuilt: no replacement_history)',
      'local (rebuilt: no replacement_history)',
    ]);
    const second = state.compactions[1];
    const after = state.requests.find((r) => r.purpose === 'agent' && r.seq > (second?.startSeq ?? Infinity));
    const view = await ins.fullView(after?.index ?? -1);
    expect(texts(view?.items ?? [])).toEqual([FIRST, FOLLOW_UP]);
    // The last item is the second summary alone: the first one is not a user message kept.
    const users = view?.items.filter((i) => i.role === 'user') ?? [];
    expect(users.map((i) => i.derivation?.kind)).toEqual(['reinjected', 'reinjected', 'reinjected', 'checkpoint']);
    expect(users[3]?.blocks).toEqual([{ type: 'text', text: expect.stringMatching(new RegExp(`\\n${SECOND}$`)) }]);
    // The copy of a copy re-reads its text from the original message's line.
    const copy = await ins.session.hydrate(users[1]?.seq ?? -1);
    expect(copy.kind === 'item' && copy.item).toMatchObject({ origin: 'rebuilt: user message', blocks: [{ type: 'text', text: FIRST }] });
    const note = ins.diagnostics().filter((d) => d.rule === 'CODEX_LEGACY_COMPACTION');
    expect(note[1]?.message).toMatch(/2 of 2 user messages/);
    await ins.session.dispose();
  });

  it('keeps a copy of a message Codex cut masked, re-read whole from the original line', async () => {
    const ins = new SessionInspector(await loadSession(rollout(HUGE)));
    const state = ins.replay();
    const after = state.requests.find((r) => r.purpose === 'agent' && r.seq > (state.compactions[1]?.startSeq ?? Infinity));
    const view = ins.view(after?.index ?? -1);
    const users = view?.items.filter((i) => i.role === 'user' && i.meta !== true) ?? [];
    expect(users.map((i) => i.rendition)).toEqual(['masked', 'verbatim']);
    const copy = await ins.session.hydrate(users[0]?.seq ?? -1);
    expect(copy.kind === 'item' && copy.item).toMatchObject({
      origin: 'rebuilt: user message cut to the token budget',
      blocks: [{ type: 'text', text: HUGE }],
    });
    await ins.session.dispose();
  });
});
