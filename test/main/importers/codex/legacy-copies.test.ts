import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SessionInspector } from '../../../../src/main/session/inspector';
import { loadSession } from '../../../../src/main/session/load';

/*
 * Codex 0.59 logs a local compaction without replacement_history: the history after it is rebuilt
 * (the initial context, the user messages, the summary). A rebuilt copy of a long user message
 * must show its whole text in the model view, not the preview kept in memory; one Codex cut to
 * its token budget must not show a preview either, nor a cut text the log does not hold.
 */

const DAY = 'fixtures/fidelity/logs/codex-0.59.0/auto-compact/sessions/2026/12/02';
const FIRST = 'Print a greeting with the shell.';
const LONG = `${FIRST} ${'Then explain every step of what you did, in detail. '.repeat(12)}`;
const SHELL = '<shell>bash</shell>';
const ROOTS = `${SHELL}\n  <writable_roots>${'<root>/tmp/palimpsest-fidelity-run/work</root>'.repeat(10)}</writable_roots>`;

/** Longer than Codex keeps of the user messages (20,000 tokens of 4 bytes): the compaction cuts it. */
const HUGE = `${FIRST} ${'Then explain every step of what you did, in detail. '.repeat(1700)}`;

/** The 0.59 auto-compact rollout with its first user message made longer than a preview (or `first`). */
function rollout(first = LONG): string {
  const name = readdirSync(DAY).find((f) => f.endsWith('.jsonl')) as string;
  const text = readFileSync(join(DAY, name), 'utf8');
  const path = join(mkdtempSync(join(tmpdir(), 'codex-copy-')), name);
  writeFileSync(path, text.split(JSON.stringify(FIRST)).join(JSON.stringify(first)).replace(SHELL, JSON.stringify(ROOTS).slice(1, -1)));
  return path;
}

describe('a Codex 0.59 compaction without replacement_history', () => {
  it('shows the rebuilt copy of a long user message whole', async () => {
    expect(LONG.length).toBeGreaterThan(384);
    const ins = new SessionInspector(await loadSession(rollout()));
    const state = ins.replay();
    const compaction = state.compactions[0];
    expect(compaction?.strategy).toBe('local (rebuilt: no replacement_history)');
    const after = state.requests.find((r) => r.purpose === 'agent' && r.seq > (compaction?.startSeq ?? Infinity));
    const view = await ins.fullView(after?.index ?? -1);
    const copy = view?.items.find((i) => i.derivation?.kind === 'reinjected' && i.role === 'user' && !i.meta);
    expect(copy?.id).toMatch(/^L\d+\.r\d+$/);
    expect(copy?.blocks).toEqual([{ type: 'text', text: LONG }]);
    await ins.session.dispose();
  });

  it('shows the rebuilt copy of a long initial context message whole', async () => {
    const ins = new SessionInspector(await loadSession(rollout()));
    const state = ins.replay();
    const compaction = state.compactions[0];
    const after = state.requests.find((r) => r.purpose === 'agent' && r.seq > (compaction?.startSeq ?? Infinity));
    const view = await ins.fullView(after?.index ?? -1);
    const context = view?.items[0];
    expect(context?.derivation?.kind).toBe('reinjected');
    const text = context?.blocks?.[0]?.type === 'text' ? context.blocks[0].text : '';
    expect(text.length).toBeGreaterThan(384);
    expect(context?.blocks).toEqual([{ type: 'text', text: expect.stringContaining(ROOTS) }]);
    await ins.session.dispose();
  });

  it('shows a user message Codex cut to the token budget as masked, its whole text re-read from its line', async () => {
    expect(HUGE.length).toBeGreaterThan(80_000);
    const ins = new SessionInspector(await loadSession(rollout(HUGE)));
    const state = ins.replay();
    const compaction = state.compactions[0];
    const after = state.requests.find((r) => r.purpose === 'agent' && r.seq > (compaction?.startSeq ?? Infinity));
    for (const view of [ins.view(after?.index ?? -1), await ins.fullView(after?.index ?? -1)]) {
      const copy = view?.items.find((i) => i.derivation?.kind === 'reinjected' && i.role === 'user' && !i.meta);
      // Where Codex cut it is not recorded: no text of ours (nor a preview) stands for what was sent.
      expect(copy).toMatchObject({ rendition: 'masked', blocks: null });
      expect(view?.unknowns).toContain(`masked item ${copy?.id ?? '?'}: the text of its reference is not recorded`);
    }
    // What is certain, the message it was cut from, re-reads whole from that message's line.
    const copy = ins.view(after?.index ?? -1)?.items.find((i) => i.derivation?.kind === 'reinjected' && i.role === 'user' && !i.meta);
    const event = await ins.session.hydrate(copy?.seq ?? -1);
    expect(event.kind === 'item' && event.item).toMatchObject({
      origin: 'rebuilt: user message cut to the token budget',
      blocks: [{ type: 'text', text: HUGE }],
    });
    const note = ins.diagnostics().find((d) => d.rule === 'CODEX_LEGACY_COMPACTION');
    expect(note?.message).toMatch(/cut to the budget, where Codex cut it is not recorded, so it is shown as unknown/);
    await ins.session.dispose();
  });
});
