import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SessionInspector } from '../../../../src/main/session/inspector';
import { loadSession } from '../../../../src/main/session/load';

/*
 * Codex 0.59 logs a local compaction without replacement_history: the history after it is rebuilt
 * (the initial context, the user messages, the summary). A rebuilt copy of a long user message
 * must show its whole text in the model view, not the preview kept in memory.
 */

const DAY = 'fixtures/fidelity/logs/codex-0.59.0/auto-compact/sessions/2026/12/02';
const FIRST = 'Print a greeting with the shell.';
const LONG = `${FIRST} ${'Then explain every step of what you did, in detail. '.repeat(12)}`;
const SHELL = '<shell>bash</shell>';
const ROOTS = `${SHELL}\n  <writable_roots>${'<root>/tmp/palimpsest-fidelity-run/work</root>'.repeat(10)}</writable_roots>`;

/** The 0.59 auto-compact rollout with its first user message made longer than a preview. */
function rollout(): string {
  const name = readdirSync(DAY).find((f) => f.endsWith('.jsonl')) as string;
  const text = readFileSync(join(DAY, name), 'utf8');
  const path = join(mkdtempSync(join(tmpdir(), 'codex-copy-')), name);
  writeFileSync(path, text.split(JSON.stringify(FIRST)).join(JSON.stringify(LONG)).replace(SHELL, JSON.stringify(ROOTS).slice(1, -1)));
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
});
