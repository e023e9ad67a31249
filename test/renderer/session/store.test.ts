import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PalimpsestApi } from '../../../src/shared/api/contract';
import { realApi } from './real-api';
import { createSessionStore, type SessionStore } from '../../../src/renderer/session/store';

// The session store against the real handlers (no transport): what the keys and picks do to the state.
const real = realApi();

async function storeFor(path: string): Promise<SessionStore> {
  const opened = await real.api.openSession({ path });
  if (!opened.ok) throw new Error(opened.error.message);
  const store = createSessionStore(real.api, opened.value.sessionId);
  await store.getState().load();
  return store;
}

const settle = async (store: SessionStore, until: () => boolean): Promise<void> => {
  for (let i = 0; i < 200 && !until(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(until()).toBe(true);
};

describe('session store', () => {
  it('loads the default branch and selects the first request', async () => {
    const s = await storeFor('fixtures/palimpsest/basic.jsonl');
    expect(s.getState()).toMatchObject({ phase: 'ready', branch: 'main', selected: 0 });
    expect(s.getState().requests).toHaveLength(10);
    expect(s.getState().head?.request.index).toBe(0);
    expect(s.getState().markers.compaction.map((m) => [m.id, m.index])).toEqual([['cmp_01', 7]]);
  });

  it('steps requests and jumps to the compaction marker', async () => {
    const s = await storeFor('fixtures/palimpsest/basic.jsonl');
    s.getState().step(1);
    await settle(s, () => s.getState().head?.request.index === 1);
    s.getState().jumpMarker('compaction', 1);
    await settle(s, () => s.getState().head?.request.index === 7);
    s.getState().jumpMarker('compaction', 1);
    expect(s.getState().selected).toBe(7); // no compaction after it: nothing moves
    s.getState().edge('last');
    await settle(s, () => s.getState().head?.request.index === 9);
  });

  it('loads view and raw windows on demand, and picks align both ways', async () => {
    const s = await storeFor('fixtures/palimpsest/basic.jsonl');
    await s.getState().select(8);
    s.getState().ensureView(0, 3);
    s.getState().ensureRaw(0, 45);
    await settle(
      s,
      () =>
        s.getState().viewChunks[0] !== undefined && s.getState().alignChunks[0] !== undefined && s.getState().eventChunks[0] !== undefined,
    );
    s.getState().pickView(0);
    const k1 = s.getState().viewChunks[0]?.[0];
    expect(k1?.item.id).toBe('k1');
    expect([...s.getState().rawHighlight]).toEqual(k1?.item.provenance);
    expect(s.getState().scrollRaw?.seq).toBe(k1?.item.provenance[0]);
    const summarised = s.getState().alignChunks[0]?.find((a) => a.fate?.fate === 'summarised');
    await s.getState().pickRaw(summarised?.seq ?? -1);
    expect(s.getState().viewHighlight.has(0)).toBe(true);
    expect(s.getState().scrollView?.position).toBe(0);
  });

  it('drops the windows of a view when another request is selected, and asks for the first with the head', async () => {
    const s = await storeFor('fixtures/palimpsest/basic.jsonl');
    await s.getState().select(8);
    await settle(s, () => s.getState().viewChunks[0] !== undefined);
    expect(s.getState().viewChunks[0]?.[0]?.item.id).toBe('k1');
    const selecting = s.getState().select(2);
    // Request 8's window is gone at once; request 2's first is on its way beside its head.
    expect(s.getState().viewChunks).toEqual({});
    await selecting;
    await settle(s, () => s.getState().viewChunks[0] !== undefined);
    expect(s.getState().viewChunks[0]?.[0]?.item.id).toBe('u1');
    expect(s.getState().viewChunks[0]).toHaveLength(s.getState().head?.items ?? -1);
  });

  it("asks for the open's branch and its first view beside the summary, and once", async () => {
    const opened = await real.api.openSession({ path: 'fixtures/palimpsest/basic.jsonl' });
    if (!opened.ok) throw new Error(opened.error.message);
    // The summary is held back: everything the first view needs must be asked for before it comes.
    let release = (): void => {};
    const held = new Promise<void>((r) => (release = r));
    const asked: string[] = [];
    const slow = new Proxy(real.api, {
      get(target, method: keyof PalimpsestApi) {
        const call = target[method] as (input: unknown) => Promise<unknown>;
        return async (input: unknown) => {
          asked.push(method);
          if (method === 'getSessionInfo') await held;
          return call(input);
        };
      },
    });
    const s = createSessionStore(slow, opened.value.sessionId);
    const loading = s.getState().load(opened.value);
    await new Promise((r) => setTimeout(r, 20));
    expect(asked).toEqual(
      expect.arrayContaining(['getSessionInfo', 'getViewHead', 'getViewWindow', 'listRequests', 'listCompactions', 'listDiagnostics']),
    );
    expect(s.getState().phase).toBe('loading');
    release();
    await loading;
    expect(s.getState()).toMatchObject({ phase: 'ready', branch: 'main', selected: 0 });
    expect(s.getState().head?.request.index).toBe(0);
    await settle(s, () => s.getState().viewChunks[0] !== undefined);
    expect(asked.filter((m) => m === 'getViewHead' || m === 'listRequests')).toEqual(['getViewHead', 'listRequests']);
    expect(asked.filter((m) => m === 'getViewWindow')).toHaveLength(1);
  });

  it('drops the guess when the summary names another branch than the open did', async () => {
    const opened = await real.api.openSession({ path: 'fixtures/palimpsest/branches.jsonl' });
    if (!opened.ok) throw new Error(opened.error.message);
    const other = opened.value.branches.find((b) => b.name !== opened.value.defaultBranch);
    if (!other) throw new Error('branches.jsonl has more than one branch');
    const s = createSessionStore(real.api, opened.value.sessionId);
    // As if the open had named the other branch: the view must show the summary's.
    await s.getState().load({ ...opened.value, defaultBranch: other.name });
    expect(s.getState()).toMatchObject({ phase: 'ready', branch: opened.value.defaultBranch, selected: 0 });
    expect(s.getState().head?.branch).toBe(opened.value.defaultBranch);
    const { sessionId } = opened.value;
    const lists = await real.api.listRequests({ sessionId, branch: opened.value.defaultBranch });
    const first = await real.api.getViewWindow({ sessionId, branch: opened.value.defaultBranch, index: 0, from: 0, count: 1 });
    if (!lists.ok || !first.ok) throw new Error('the default branch cannot be read');
    expect(s.getState().requests).toEqual(lists.value.requests);
    await settle(s, () => s.getState().viewChunks[0] !== undefined);
    expect(s.getState().viewChunks[0]?.[0]).toEqual(first.value.items[0]);
  });

  it('expands an item with its whole text, and jumps to an event from outside (a search hit)', async () => {
    const s = await storeFor('fixtures/palimpsest/basic.jsonl');
    await s.getState().select(8);
    s.getState().toggleExpand('k1');
    await settle(s, () => s.getState().expanded.k1?.state === 'ready');
    expect(s.getState().expanded.k1?.text).toMatch(/compacted-summary/);
    await s.getState().jumpToSeq(34);
    expect(s.getState().selected).toBe(7);
    expect(s.getState().pickedRaw).toBe(34);
    expect(s.getState().scrollRaw?.seq).toBe(34);
  });

  it('replays another branch when picked (branches.jsonl)', async () => {
    const s = await storeFor('fixtures/palimpsest/branches.jsonl');
    const other = s.getState().info?.branches.find((b) => b.name !== s.getState().branch);
    if (!other) throw new Error('branches.jsonl has more than one branch');
    await s.getState().setBranch(other.name);
    expect(s.getState().branch).toBe(other.name);
    expect(s.getState().head?.branch).toBe(other.name);
  });
});

describe('session store while the session grows (Follow)', () => {
  const CODEX = 'fixtures/codex/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl';
  /** The rollout's lines, to write a copy of it cut anywhere and grow it as its harness would. */
  const codexLines = (): string[] =>
    readFileSync(CODEX, 'utf8')
      .split('\n')
      .filter((l) => l !== '');

  it('takes a change read into the session keeping the selection, or going to the newest', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'palimpsest-store-follow-'));
    try {
      const lines = codexLines();
      const file = join(dir, 'rollout.jsonl');
      writeFileSync(file, lines.slice(0, 40).join('\n') + '\n');
      const s = await storeFor(file);
      const { sessionId } = s.getState();
      expect(s.getState().requests).toHaveLength(3);
      await s.getState().select(1);
      const events = s.getState().info?.counts.events ?? 0;
      s.getState().ensureRaw(0, events - 1);
      await settle(s, () => s.getState().eventChunks[0]?.length === events);
      appendFileSync(file, lines.slice(40).join('\n') + '\n');
      const r = await real.api.awaitSessionChange({ sessionId, since: 0, waitMs: 20_000 });
      if (!r.ok || r.value.summary === null) throw new Error('no change');
      await s.getState().refresh({ summary: r.value.summary, newest: false, reloaded: r.value.reloaded !== null });
      expect(s.getState()).toMatchObject({ selected: 1, revision: 1 });
      expect(s.getState().head?.request.index).toBe(1);
      expect(s.getState().requests).toHaveLength(6);
      // The raw history's last window is asked for again, with the events appended.
      const now = s.getState().info?.counts.events ?? 0;
      expect(now).toBeGreaterThan(events);
      expect(s.getState().eventChunks[0]).toBeUndefined();
      s.getState().ensureRaw(0, now - 1);
      await settle(s, () => s.getState().eventChunks[0]?.length === now);
      await s.getState().refresh({ summary: r.value.summary, newest: true, reloaded: false });
      expect(s.getState().selected).toBe(5);
      await settle(s, () => s.getState().head?.request.index === 5);
      await real.api.closeSession({ sessionId });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('asks again for the head of a request whose response the lines appended end, keeping its windows', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'palimpsest-store-follow-'));
    try {
      const lines = codexLines();
      const file = join(dir, 'rollout.jsonl');
      // Cut while the third request's response is being written: no usage reported yet.
      writeFileSync(file, lines.slice(0, 33).join('\n') + '\n');
      const s = await storeFor(file);
      const { sessionId } = s.getState();
      expect(s.getState().requests).toHaveLength(3);
      await s.getState().select(2);
      expect(s.getState().head?.request.reportedInputTokens).toBeNull();
      s.getState().ensureView(0, 10);
      await settle(s, () => s.getState().viewChunks[0] !== undefined);
      const items = s.getState().viewChunks[0];
      appendFileSync(file, lines.slice(33, 40).join('\n') + '\n');
      const r = await real.api.awaitSessionChange({ sessionId, since: 0, waitMs: 20_000 });
      if (!r.ok || r.value.summary === null) throw new Error('no change');
      expect(r.value.reloaded).toBeNull();
      await s.getState().refresh({ summary: r.value.summary, newest: false, reloaded: false });
      const now = await real.api.getViewHead({ sessionId, index: 2 });
      if (!now.ok) throw new Error(now.error.message);
      expect(now.value.request.reportedInputTokens).toBeGreaterThan(0);
      expect(s.getState().head).toEqual(now.value);
      expect(s.getState().viewChunks[0]).toBe(items);
      await real.api.closeSession({ sessionId });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
