import { describe, expect, it } from 'vitest';
import { itemTokens, renderItem, viewTokens } from '../../../../src/shared/strategies/common/render';
import { charCounter } from '../common/char-counter';
import { baselines, clearTools, extractive, truncate } from '../../../../src/shared/strategies/baselines';
import { classify } from '../../../../src/shared/strategies/baselines/extract';
import type { SourceItem } from '../../../../src/shared/strategies/types';
import { assistant, call, chars, input, result, textOf, user, view } from '../common/build';

const ids = (v: { items: readonly { id: string }[] } | null | undefined) => v?.items.map((i) => i.id);
const sum = (xs: readonly number[], from: number): number => xs.slice(from).reduce((a, b) => a + b, 0);

describe('baselines: definitions', () => {
  it('need no model', () => {
    expect(baselines.map((b) => [b.id, b.source, b.needsModel])).toEqual([
      ['truncate', 'baseline', false],
      ['clear-tools', 'baseline', false],
      ['extractive', 'baseline', false],
    ]);
  });
});

describe('truncate', () => {
  const items = [
    user('u1', 'Build a CLI in src/cli.ts. Never use eval.'),
    assistant('a1', 'Starting.'),
    call('c1', 'k1'),
    result('r1', 'k1', chars(8_000)),
    assistant('a2', 'Read it.'),
    user('u2', 'Add --help.'),
    assistant('a3', 'Added.'),
  ];
  const tail = sum(itemTokens(items, charCounter), 5);

  it('keeps the first user message, a loud marker for what was dropped, and the recent tail', async () => {
    const source = view(items);
    const res = await truncate.run(input(source, { options: { tailTokens: tail } }));
    expect(res.outcome).toBe('fallback');
    expect(res.error).toBeNull();
    expect(ids(res.view)).toEqual(['u1', 'truncate:1', 'u2', 'a3']);
    expect(res.view?.items[1]).toEqual({
      id: 'truncate:1',
      role: 'user',
      blocks: [{ type: 'text', text: '[4 earlier items truncated; no summary]' }],
      derivation: { kind: 'marker', of: ['a1', 'c1', 'r1', 'a2'], fallback: 'truncation' },
    });
    expect(res.calls).toEqual([]);
    expect(res.tokens).toEqual({ before: viewTokens(source, charCounter), after: viewTokens(res.view ?? source, charCounter) });
  });

  it('puts one marker per dropped run when the first user message is not the first item', async () => {
    const res = await truncate.run(input(view([assistant('a0', 'Hello.'), ...items]), { options: { tailTokens: tail } }));
    expect(ids(res.view)).toEqual(['truncate:1', 'u1', 'truncate:2', 'u2', 'a3']);
    expect(res.view?.items[0]?.derivation).toEqual({ kind: 'marker', of: ['a0'], fallback: 'truncation' });
    expect(textOf(res.view?.items[0])).toBe('[1 earlier item truncated; no summary]');
    expect(res.view?.items[2]?.derivation).toEqual({ kind: 'marker', of: ['a1', 'c1', 'r1', 'a2'], fallback: 'truncation' });
  });

  it('drops the first user message too with keepFirstUser: false; fails when nothing is over the tail budget', async () => {
    const res = await truncate.run(input(view(items), { options: { tailTokens: tail, keepFirstUser: false } }));
    expect(ids(res.view)).toEqual(['truncate:1', 'u2', 'a3']);
    expect(textOf(res.view?.items[0])).toBe('[5 earlier items truncated; no summary]');
    // Default tail: 20 % of a 100,000 window holds the whole session.
    expect(await truncate.run(input(view(items)))).toMatchObject({
      outcome: 'failed',
      error: 'nothing to truncate: the history fits the recent tail budget (20,000 tokens)',
    });
  });
});

describe('clear-tools', () => {
  const names = ['read_file', 'grep', 'bash', 'read_file', 'list_dir'];
  const items: SourceItem[] = [user('u', 'Look around.')];
  names.forEach((name, i) =>
    items.push(call(`c${i + 1}`, `k${i + 1}`, name, `{"n":${i + 1}}`), result(`r${i + 1}`, `k${i + 1}`, chars(10_000, String(i + 1)))),
  );

  it('keeps the last 3 results verbatim and replaces older ones by a placeholder naming the call', async () => {
    const res = await clearTools.run(input(view(items)));
    expect(res.outcome).toBe('committed');
    expect(ids(res.view)).toEqual(['u', 'c1', 'clear-tools:1', 'c2', 'clear-tools:2', 'c3', 'r3', 'c4', 'r4', 'c5', 'r5']);
    expect(res.view?.items[2]).toEqual({
      id: 'clear-tools:1',
      role: 'tool',
      blocks: [
        {
          type: 'tool_result',
          callId: 'k1',
          content: [{ type: 'text', text: '[tool result cleared: read_file (call k1), 10,000 characters]' }],
        },
      ],
      derivation: {
        kind: 'pruned',
        of: 'r1',
        head: 0,
        tail: 0,
        omitted: 10_000,
        unit: 'chars',
        shadowedTokens: charCounter(renderItem(items[2] as SourceItem, 2)),
      },
    });
    expect(textOf(res.view?.items[4])).toBe('[tool result cleared: grep (call k2), 10,000 characters]');
    expect(res.view?.items[6]).toEqual({ id: 'r3', role: 'tool', blocks: items[6]?.blocks });
    expect(textOf(res.view?.items[6])).toBe(chars(10_000, '3'));
    expect(res.view?.items[1]?.blocks).toEqual(items[1]?.blocks);
    expect(res.notes).toEqual(['cleared 2 of 5 tool results (20,000 characters); kept the last 3 verbatim']);
  });

  it('honours keepLast and fails when nothing is older than the kept results', async () => {
    const res = await clearTools.run(input(view(items), { options: { keepLast: 1 } }));
    expect(ids(res.view)?.filter((id) => id.startsWith('clear-tools:'))).toHaveLength(4);
    expect(await clearTools.run(input(view(items), { options: { keepLast: 5 } }))).toMatchObject({
      outcome: 'failed',
      error: 'nothing to clear: 5 tool results, the last 5 are kept',
    });
  });
});

describe('extractive', () => {
  const items = [
    user('u1', 'Please refactor the parser.\nYou must never change the public API.\nThanks!'),
    call('c1', 'k1', 'read_file', '{"path":"src/parser/index.ts"}'),
    result('r1', 'k1', 'export function parseExpr(input: string) {\n  return 1;\n}\nsome plain words here'),
    assistant('a1', 'I hit an error: TypeError: cannot read properties of undefined.\nLet me look again.'),
    user('u2', 'ok'),
    assistant('a2', 'Done.'),
  ];
  const tail = sum(itemTokens(items, charCounter), 4);
  const lines = [
    '- [#0 user] You must never change the public API.',
    '- [#1 assistant] read_file {"path":"src/parser/index.ts"}',
    '- [#2 tool] export function parseExpr(input: string) {',
    '- [#3 assistant] I hit an error: TypeError: cannot read properties of undefined.',
  ];

  it('copies constraint, path, identifier and error lines verbatim into one checkpoint, then the recent tail', async () => {
    const res = await extractive.run(input(view(items), { options: { tailTokens: tail } }));
    expect(res.outcome).toBe('committed');
    expect(ids(res.view)).toEqual(['extractive:1', 'u2', 'a2']);
    const text = `Extractive summary of earlier history (lines copied verbatim, selected without a model):\n${lines.join('\n')}`;
    expect(res.summary).toBe(text);
    expect(res.view?.items[0]).toEqual({
      id: 'extractive:1',
      role: 'user',
      blocks: [{ type: 'text', text }],
      derivation: { kind: 'checkpoint', compactionId: 'rerun', covers: ['u1', 'c1', 'r1', 'a1'], part: 'summary' },
    });
    expect(res.notes[0]).toBe(
      'extracted 4 of 4 candidate lines (1 constraint, 1 error, 1 path, 1 identifier) from 4 items within 8,192 tokens; kept the last 2 items verbatim',
    );
    // Deterministic: the same source gives the same bytes.
    expect((await extractive.run(input(view(items), { options: { tailTokens: tail } }))).summary).toBe(text);
  });

  it('under a tight budget keeps user constraints and errors before paths and identifiers', async () => {
    const budget = charCounter(`${lines[0]}\n`) + charCounter(`${lines[3]}\n`);
    const res = await extractive.run(input(view(items), { options: { tailTokens: tail, maxTokens: budget } }));
    expect(res.summary?.split('\n').slice(1)).toEqual([lines[0], lines[3]]);
  });

  it('classifies by fixed patterns; only user-typed text can be a constraint', () => {
    expect(classify('Do not touch migrations.', true)).toBe('constraint');
    expect(classify('Do not touch migrations.', false)).toBeNull();
    expect(classify('open failed: ENOENT', false)).toBe('error');
    expect(classify('see docs/tokens.md', false)).toBe('path');
    expect(classify('bumped to 4.1.12', false)).toBe('identifier');
    expect(classify('looks good to me', true)).toBeNull();
  });
});
