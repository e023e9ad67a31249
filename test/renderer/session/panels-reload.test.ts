// @vitest-environment happy-dom
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { act, cleanup, render } from '@testing-library/react';
import { createElement } from 'react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHandlers } from '../../../src/main/api/handlers';
import { SessionRegistry } from '../../../src/main/api/sessions';
import { closeSessionTokens } from '../../../src/main/api/session/tokens';
import type { PalimpsestApi } from '../../../src/shared/api/contract';
import { SessionContext } from '../../../src/renderer/session/context';
import { DiffPanel } from '../../../src/renderer/session/panels/DiffPanel';
import { EventPanel } from '../../../src/renderer/session/panels/EventPanel';
import { createSessionStore, type SessionStore } from '../../../src/renderer/session/store';

/*
 * The diff and event panels while the session shown changes (Follow, awaitSessionChange), against
 * the real handlers over a real Codex rollout: at each change — lines appended, or the file
 * rewritten in place (Codex rewrites its rollout on compaction), answered `reloaded` — both ask
 * again and show what the session holds now, the request selected and the event picked kept.
 */

const CODEX = 'fixtures/codex/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl';
// Another rollout: the file is rewritten with its first lines.
const OTHER = 'fixtures/codex/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl';
const OTHER_LINES = 120;
const SELECTED = 2;
const PICKED = 5;

const linesOf = (path: string): string[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '');

const COUNTED = ['listFates', 'diffViews', 'getEventText'] as const;
type Counted = (typeof COUNTED)[number];

let dir: string;
let registry: SessionRegistry;
/** The handlers themselves (what the test asks), and the same counting the calls of the panels' methods (what the store is given). */
let handlers: PalimpsestApi;
let api: PalimpsestApi;
const calls: Record<Counted, number> = { listFates: 0, diffViews: 0, getEventText: 0 };

function counted<M extends Counted>(m: M): PalimpsestApi[M] {
  const call = handlers[m] as (input: unknown) => ReturnType<PalimpsestApi[M]>;
  return ((input: unknown) => {
    calls[m]++;
    return call(input);
  }) as PalimpsestApi[M];
}

beforeAll(() => {
  (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
  dir = mkdtempSync(join(tmpdir(), 'palimpsest-panels-reload-'));
  registry = new SessionRegistry({ allow: 'any' });
  handlers = createHandlers({ registry, initialPaths: [] });
  api = { ...handlers, listFates: counted('listFates'), diffViews: counted('diffViews'), getEventText: counted('getEventText') };
});
afterEach(cleanup);
afterAll(async () => {
  registry.dispose();
  await closeSessionTokens();
  rmSync(dir, { recursive: true, force: true });
});

const settle = async (until: () => boolean): Promise<void> => {
  for (let i = 0; i < 400 && !until(); i++) await act(() => new Promise((r) => setTimeout(r, 5)));
  expect(until()).toBe(true);
};

/** Waits for the change written, and hands it to the store as the session view does. */
async function change(s: SessionStore, since: number): Promise<{ revision: number; reloaded: string | null }> {
  const r = await act(() => handlers.awaitSessionChange({ sessionId: s.getState().sessionId, since, waitMs: 20_000 }));
  if (!r.ok || r.value.summary === null) throw new Error('no change');
  const { summary, reloaded, revision } = r.value;
  await act(() => s.getState().refresh({ summary, newest: false, reloaded: reloaded !== null }));
  return { revision, reloaded };
}

/** What the panels should show now: the fate counts and rows of the selected view, its diff with the one before, the event's text. */
async function expected(s: SessionStore) {
  const { sessionId, branch } = s.getState();
  const at = { sessionId, branch: branch ?? undefined };
  const fates = await handlers.listFates({ ...at, index: SELECTED, from: 0, count: 200 });
  const diff = await handlers.diffViews({ ...at, a: SELECTED - 1, b: SELECTED, limit: 2000 });
  const event = await handlers.getEventText({ sessionId, seq: PICKED });
  if (!fates.ok || !diff.ok || !event.ok) throw new Error('the handlers failed');
  return {
    all: `all ${fates.value.total}`,
    fates: fates.value.rows.map((r) => r.fate.id),
    diff: `+${diff.value.counts.added} added`,
    event: event.value.text.text,
  };
}

/** What the panels show. */
function shown(container: HTMLElement) {
  return {
    all: container.querySelector('.sv-fate-counts button')?.textContent ?? null,
    fates: [...container.querySelectorAll('.sv-fate-rows li code')].map((c) => c.textContent),
    diff: container.querySelector('.sv-diff-counts .added')?.textContent ?? null,
    event: container.querySelector('.sv-event pre')?.textContent ?? null,
  };
}

describe('the diff and event panels while the session changes', () => {
  it('ask again at each change and show the new answers, the request selected and the event picked kept', async () => {
    const lines = linesOf(CODEX);
    const file = join(dir, 'rollout.jsonl');
    writeFileSync(file, lines.slice(0, 40).join('\n') + '\n');
    const opened = await handlers.openSession({ path: file });
    if (!opened.ok) throw new Error(opened.error.message);
    const s = createSessionStore(api, opened.value.sessionId);
    await s.getState().load();
    await s.getState().select(SELECTED);
    await s.getState().pickRaw(PICKED);
    const { container } = render(createElement(SessionContext.Provider, { value: s }, createElement(DiffPanel), createElement(EventPanel)));
    const first = await act(() => expected(s));
    await settle(() => JSON.stringify(shown(container)) === JSON.stringify(first));
    const before = { ...calls };

    // Lines appended (the host loads the session again the first time, then reads on).
    appendFileSync(file, lines.slice(40, 52).join('\n') + '\n');
    const appended = await change(s, 0);
    expect(appended.reloaded).toBeNull();
    expect(s.getState().requests.length).toBeGreaterThan(3);
    expect(s.getState()).toMatchObject({ selected: SELECTED, pickedRaw: PICKED });
    await settle(() => COUNTED.every((m) => calls[m] > before[m]));
    const grown = await act(() => expected(s));
    await settle(() => JSON.stringify(shown(container)) === JSON.stringify(grown));
    const between = { ...calls };

    // Rewritten in place: both ask again, and show what the session holds now.
    writeFileSync(file, linesOf(OTHER).slice(0, OTHER_LINES).join('\n') + '\n');
    const rewritten = await change(s, appended.revision);
    expect(rewritten.reloaded).toMatch(/rewritten in place/);
    expect(s.getState()).toMatchObject({ selected: SELECTED, pickedRaw: PICKED });
    const now = await act(() => expected(s));
    expect(now.all).not.toBe(grown.all);
    expect(now.event).not.toBe(grown.event);
    await settle(() => JSON.stringify(shown(container)) === JSON.stringify(now));
    for (const m of COUNTED) expect(calls[m]).toBeGreaterThan(between[m]);
    await handlers.closeSession({ sessionId: s.getState().sessionId });
  });
});
