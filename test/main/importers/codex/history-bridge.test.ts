import { describe, expect, it } from 'vitest';
import { codexImporter } from '../../../../src/main/importers/codex';
import { HISTORY_BRIDGE_HEAD, HISTORY_BRIDGE_SUMMARY, SUMMARY_PREFIX } from '../../../../src/main/importers/codex/known';
import type { ViewItem } from '../../../../src/shared/model/view';
import { compacted, importValues, meta, say, tokens, turnContext, user, views } from './helpers';

/*
 * Codex 0.47 (its rollouts: no turn starts, usage before output, no replacement_history) leaves
 * after a local compaction its initial context and one "history bridge" message: every user
 * message of the history and the summary (the real run against the mock is pinned in
 * test/fidelity/codex-old.test.ts).
 */

const ENV = '<environment_context><cwd>/work</cwd></environment_context>';

/** A round: its turn_context, its usage (written first), its reply. */
const round = (input: number, total: number, text: string) => [turnContext(), tokens({ input }, total), say(text)];

function session(first: string, summary = 'Sum.') {
  return [
    meta({ cli_version: '0.47.0', base_instructions: undefined }),
    user(ENV),
    user(first),
    ...round(100, 100, 'one'),
    user('second'),
    ...round(200, 300, 'two'),
    turnContext(),
    tokens({ input: 300 }, 600),
    compacted(summary),
    ...round(50, 650, 'after'),
  ];
}

/** The user texts of a view, as the wire joins consecutive ones (a blank line between). */
function userTexts(items: readonly ViewItem[]): (string | null)[] {
  const out: (string | null)[] = [];
  let run: string[] | null = null;
  for (const it of items) {
    const text = it.blocks === null ? null : it.blocks.map((b) => (b.type === 'text' ? b.text : '?')).join('');
    if (it.role !== 'user' || text === null) {
      if (run) out.push(run.join('\n\n'));
      run = null;
      if (text === null) out.push(null);
      continue;
    }
    (run ??= []).push(text);
  }
  if (run) out.push(run.join('\n\n'));
  return out;
}

describe('a Codex 0.47 compaction', () => {
  it('leaves the initial context, then one bridge of the user messages and the summary, as Codex sent it', () => {
    const r = importValues(session('first'));
    const { state, view } = views(r);
    const v = view(state.requests.length - 1);
    expect(userTexts(v.items)).toEqual([`${ENV}\n\n${HISTORY_BRIDGE_HEAD}\n\nfirst\n\nsecond\n\n${HISTORY_BRIDGE_SUMMARY}\n\nSum.`]);
    expect(v.items.map((i) => [i.id, i.derivation?.kind ?? null, i.derivation?.kind === 'reinjected' ? i.derivation.of : null])).toEqual([
      ['L13.r0', 'reinjected', ['L2']],
      ['L13.r1', null, null],
      ['L13.r2', 'reinjected', ['L3']],
      ['L13.r3', 'reinjected', ['L7']],
      ['L13.r4', 'checkpoint', null],
    ]);
    const note = r.diagnostics.find((d) => d.rule === 'CODEX_LEGACY_COMPACTION');
    expect(note?.message).toMatch(
      /Codex 0\.47\.0.*initial context recorded at line 2 \(1 message\).*one user message holding the 2 user messages/,
    );
  });

  it('copies each user message from its own line, and the summary from the compacted line, so both re-read whole', () => {
    const long = `first ${'x'.repeat(2000)}`;
    const r = importValues(session(long, `S ${'y'.repeat(2000)}`));
    const copy = r.of('item').find((e) => e.item.id === 'L13.r2');
    expect(copy?.line).toBe(3);
    expect(
      codexImporter.rehydrate({ ...copy!, item: { ...copy!.item, blocks: [{ type: 'text', text: 'first' }] } }, r.lines[3] ?? {}),
    ).toMatchObject({ item: { id: 'L13.r2', blocks: [{ type: 'text', text: long }] } });
    const summary = r.of('item').find((e) => e.item.derivation?.kind === 'checkpoint');
    expect(summary?.line).toBe(13);
    expect(
      codexImporter.rehydrate({ ...summary!, item: { ...summary!.item, blocks: [{ type: 'text', text: 'S' }] } }, r.lines[13] ?? {}),
    ).toMatchObject({
      item: { blocks: [{ type: 'text', text: `${HISTORY_BRIDGE_SUMMARY}\n\nS ${'y'.repeat(2000)}` }] },
    });
  });

  it('holds an earlier bridge whole in the next one, as a user message of the history', () => {
    const vals = [
      ...session('first'),
      user('third'),
      ...round(60, 710, 'three'),
      turnContext(),
      tokens({ input: 70 }, 780),
      compacted('Sum2.'),
      ...round(40, 820, 'done'),
    ];
    const { state, view } = views(importValues(vals));
    const bridge1 = `${HISTORY_BRIDGE_HEAD}\n\nfirst\n\nsecond\n\n${HISTORY_BRIDGE_SUMMARY}\n\nSum.`;
    expect(userTexts(view(state.requests.length - 1).items)).toEqual([
      `${ENV}\n\n${HISTORY_BRIDGE_HEAD}\n\n${bridge1}\n\nthird\n\n${HISTORY_BRIDGE_SUMMARY}\n\nSum2.`,
    ]);
  });

  it('shows the user messages as unknown when Codex cut them, which the log does not record', () => {
    const r = importValues(session('x'.repeat(80_000)));
    const { state, view } = views(r);
    expect(userTexts(view(state.requests.length - 1).items)).toEqual([
      `${ENV}\n\n${HISTORY_BRIDGE_HEAD}`,
      null,
      null,
      `${HISTORY_BRIDGE_SUMMARY}\n\nSum.`,
    ]);
    expect(r.diagnostics.find((d) => d.rule === 'CODEX_LEGACY_COMPACTION')?.message).toMatch(/how it cut them is not recorded/);
  });

  it('is not used from Codex 0.59, nor for a summary logged with its prefix', () => {
    for (const [version, summary] of [
      ['0.59.0', 'Sum.'],
      ['0.47.0', `${SUMMARY_PREFIX}\nSum.`],
    ] as const) {
      const vals = session('first', summary);
      vals[0] = meta({ cli_version: version, base_instructions: undefined });
      const { state, view } = views(importValues(vals));
      const texts = userTexts(view(state.requests.length - 1).items);
      expect(texts).toEqual([`${ENV}\n\nfirst\n\nsecond\n\n${summary.startsWith(SUMMARY_PREFIX) ? summary : `${SUMMARY_PREFIX}\nSum.`}`]);
    }
  });
});
