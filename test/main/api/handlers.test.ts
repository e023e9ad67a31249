import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHandlers, dispatch, type Handlers } from '../../../src/main/api/handlers';
import { SessionRegistry } from '../../../src/main/api/sessions';
import { viewJson } from '../../../src/main/present/json';
import { SessionInspector } from '../../../src/main/session/inspector';
import { loadSession } from '../../../src/main/session/load';
import { CONTRACT, type ProgressEvent } from '../../../src/shared/api/contract';
import { RULES } from '../../../src/shared/diagnostics';
import { REPLAY_STEP } from '../../../src/shared/replay/fold';
import { value, errorOf } from './results';

const SMALL = 'fixtures/palimpsest/api-small.jsonl';

describe('API handlers', () => {
  let registry: SessionRegistry;
  let handlers: Handlers;
  let progress: ProgressEvent[];
  let logged: string[];

  beforeEach(() => {
    registry = new SessionRegistry({ allow: 'any' });
    progress = [];
    logged = [];
    handlers = createHandlers({
      registry,
      initialPaths: [SMALL],
      onProgress: (e) => progress.push(e),
      logError: (m, e) => logged.push(`${m}: ${String(e)}`),
    });
  });
  afterEach(() => registry.dispose());

  const open = async () => value(await handlers.openSession({ path: SMALL }));

  it('initialSessions lists the paths the host was started with', async () => {
    expect(value(await handlers.initialSessions({}))).toEqual({ paths: [SMALL] });
  });

  it('openSession summarises the session and reports progress', async () => {
    const s = await open();
    expect(s).toMatchObject({
      path: SMALL,
      format: 'palimpsest',
      defaultBranch: 'main',
      counts: { events: 19, items: 6, requests: 4, compactions: 1, diagnostics: { error: 0, warning: 2, info: 0 } },
      branches: [{ name: 'main', forkedFrom: null, events: 19, lastSeq: 18 }],
    });
    expect(s.files).toEqual([{ path: SMALL, format: 'palimpsest', bytes: expect.any(Number), lines: 19, records: 19, skipped: 0 }]);
    expect(s.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect([...new Set(progress.map((p) => p.phase))]).toEqual(['reading', 'replaying', 'checking', 'done']);
    expect(CONTRACT.openSession.output.parse(s)).toEqual(s);
  });

  it('openSession reports the bytes read as it reads, and openingSessions lists the open while it is under way', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'palimpsest-progress-'));
    try {
      const path = join(dir, 'big.jsonl');
      const lines = [JSON.stringify({ kind: 'session', format: 'palimpsest', version: 1, id: 'big' })];
      for (let i = 0; i < 3_000; i++)
        lines.push(
          JSON.stringify({ kind: 'item', item: { id: `i${i}`, role: 'user', blocks: [{ type: 'text', text: `${i} `.repeat(400) }] } }),
        );
      writeFileSync(path, `${lines.join('\n')}\n`);
      const size = Buffer.byteLength(`${lines.join('\n')}\n`);
      const seen: { phase: string; listed: number }[] = [];
      handlers = createHandlers({
        registry,
        initialPaths: [],
        onProgress: (e) => {
          progress.push(e);
          seen.push({ phase: e.phase, listed: registry.opening().filter((o) => o.path === path && o.phase === e.phase).length });
        },
      });
      value(await handlers.openSession({ path }));
      const reading = progress
        .filter((p) => p.operation === 'openSession' && p.phase === 'reading')
        .map((p) => (p.operation === 'openSession' ? p.done : null));
      expect(reading.length).toBeGreaterThan(2); // 0, then once per 1 MiB read
      expect(reading).toEqual([...reading].sort((a, b) => (a ?? 0) - (b ?? 0)));
      expect(reading[reading.length - 1]).toBe(size);
      // Bytes while reading and at the end; events while replaying; rules while checking.
      const totals = (phase: string) =>
        new Set(progress.flatMap((p) => (p.operation === 'openSession' && p.phase === phase ? [p.total] : [])));
      expect(totals('reading')).toEqual(new Set([size]));
      expect(totals('done')).toEqual(new Set([size]));
      expect(totals('replaying')).toEqual(new Set([lines.length]));
      expect(totals('checking')).toEqual(new Set([RULES.length]));
      const checked = progress
        .filter((p) => p.operation === 'openSession' && p.phase === 'checking')
        .map((p) => (p.operation === 'openSession' ? p.done : null));
      // 0 as checking starts and again once the shared facts are built, then after each rule but the last.
      expect(checked).toEqual([0, ...Array.from({ length: RULES.length }, (_, i) => i)]);
      // While under way, the host lists the open with the phase it reported; once done, nothing.
      expect(seen.filter((x) => x.phase !== 'done').every((x) => x.listed === 1)).toBe(true);
      expect(value(await handlers.openingSessions({}))).toEqual({ opening: [] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('answers other questions while it replays and checks a long session (in steps)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'palimpsest-steps-'));
    try {
      const path = join(dir, 'long.jsonl');
      const lines = [JSON.stringify({ kind: 'session', format: 'palimpsest', version: 1, id: 'long' })];
      for (let i = 0; i < REPLAY_STEP + 5_000; i++)
        lines.push(JSON.stringify({ kind: 'item', item: { id: `i${i}`, role: 'user', blocks: [{ type: 'text', text: 'x' }] } }));
      writeFileSync(path, `${lines.join('\n')}\n`);
      handlers = createHandlers({ registry, initialPaths: [], onProgress: (e) => progress.push(e) });
      // A turn of the event loop now and then, as an answer to the app would need: what phase is the open in?
      const between = new Set<string>();
      let opened = false;
      const look = (): void => {
        const phase = registry.opening().find((o) => o.path === path)?.phase;
        if (phase) between.add(phase);
        if (!opened) setImmediate(look);
      };
      setImmediate(look);
      value(await handlers.openSession({ path }));
      opened = true;
      expect(between.has('replaying')).toBe(true);
      expect(between.has('checking')).toBe(true);
      const replayed = progress
        .filter((p) => p.operation === 'openSession' && p.phase === 'replaying')
        .map((p) => (p.operation === 'openSession' ? p.done : null));
      expect(replayed).toEqual([0, REPLAY_STEP]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('listRequests returns the request rows of the CLI', async () => {
    const { sessionId } = await open();
    const r = value(await handlers.listRequests({ sessionId }));
    expect(r.branch).toBe('main');
    expect(r.requests.map((q) => [q.index, q.id, q.seq, q.purpose, q.model, q.reportedInputTokens, q.finish?.reason ?? null])).toEqual([
      [0, 'q0', 5, 'agent', 'claude-test', 1500, 'tool_calls'],
      [1, 'q1', 10, 'agent', 'claude-test', 600, 'stop'],
      [2, 's0', 13, 'compaction', 'claude-small', 900, 'stop'],
      [3, 'q2', 18, 'agent', 'claude-test', null, null],
    ]);
    expect(r.requests[3]?.error).toBeNull();
  });

  it('listCompactions and listDiagnostics', async () => {
    const { sessionId } = await open();
    const c = value(await handlers.listCompactions({ sessionId }));
    expect(c.compactions).toEqual([
      expect.objectContaining({ id: 'K1', trigger: 'auto', outcome: 'committed', checkpoints: ['cp1'], summarizerRequests: ['s0'] }),
    ]);
    const d = value(await handlers.listDiagnostics({ sessionId }));
    expect(d.counts).toEqual({ error: 0, warning: 2, info: 0 });
    expect(d.diagnostics[0]).toMatchObject({ rule: 'UNKNOWN_RECORDS', file: SMALL, line: 18, seqs: [17] });
  });

  it('getView has exactly the shape of viewJson, with fates', async () => {
    const { sessionId } = await open();
    const v = value(await handlers.getView({ sessionId, index: 3, full: true }));
    const inspector = new SessionInspector(await loadSession(SMALL));
    const view = await inspector.fullView(3);
    expect(view).not.toBeNull();
    // Equality, not a subset: a field json.ts gains and the contract lacks shows up here.
    expect(v).toEqual(JSON.parse(JSON.stringify(viewJson(SMALL, 'main', view!, inspector.fates(3)))));
    expect(v.items.map((i) => [i.id, i.kind, i.rendition])).toEqual([
      ['cp1', 'checkpoint', 'verbatim'],
      ['u2', 'user', 'verbatim'],
    ]);
    expect(v.fates.filter((f) => f.fate === 'summarised').map((f) => f.id)).toEqual(['u1', 'a1', 'r1', 'a2']);
  });

  it('getView elides long texts unless asked for full text, and says what it does not know', async () => {
    const { sessionId } = await open();
    const short = value(await handlers.getView({ sessionId, index: 0 }));
    const r1 = short.items.find((i) => i.id === 'r1');
    const block = r1?.blocks?.[0];
    expect(block?.type).toBe('tool_result');
    const leaf = block?.type === 'tool_result' ? block.content[0] : undefined;
    expect(leaf?.type === 'text' && leaf.elided).toBeGreaterThan(0);
    const full = value(await handlers.getView({ sessionId, index: 0, full: true }));
    const fullBlock = full.items.find((i) => i.id === 'r1')?.blocks?.[0];
    const fullLeaf = fullBlock?.type === 'tool_result' ? fullBlock.content[0] : undefined;
    expect(fullLeaf?.type === 'text' && fullLeaf.text.endsWith('END')).toBe(true);
    // Masked without a recorded reference: the view says so instead of guessing.
    const masked = value(await handlers.getView({ sessionId, index: 1 }));
    expect(masked.items.find((i) => i.id === 'r1')).toMatchObject({ rendition: 'masked', blocks: null });
    expect(masked.unknowns.some((u) => u.includes('r1'))).toBe(true);
    // A summarizer call shows the input it sent.
    const summarizer = value(await handlers.getView({ sessionId, index: 2 }));
    expect(summarizer.items.map((i) => i.id)).toEqual(['u1', 'a1', 'r1', 'a2']);
  });

  it('listEvents returns a window of events with file, line and a text summary', async () => {
    const { sessionId } = await open();
    const w = value(await handlers.listEvents({ sessionId, from: 2, count: 3 }));
    expect(w.total).toBe(19);
    expect(w.events.map((e) => [e.seq, e.kind, e.line, e.file, e.branch])).toEqual([
      [2, 'item', 3, SMALL, 'main'],
      [3, 'item', 4, SMALL, 'main'],
      [4, 'item', 5, SMALL, 'main'],
    ]);
    expect(w.events[0]?.summary).toContain('u1 user');
    const tail = value(await handlers.listEvents({ sessionId, from: 17, count: 100 }));
    expect(tail.events.map((e) => [e.seq, e.kind])).toEqual([
      [17, 'unknown'],
      [18, 'request'],
    ]);
    expect(value(await handlers.listEvents({ sessionId, from: 500, count: 10 })).events).toEqual([]);
  });

  it('closeSession releases the session; later calls get NO_SESSION as a value', async () => {
    const { sessionId } = await open();
    expect(value(await handlers.closeSession({ sessionId }))).toEqual({ closed: true });
    expect(registry.size).toBe(0);
    expect(value(await handlers.closeSession({ sessionId }))).toEqual({ closed: false });
    expect(errorOf(await handlers.listRequests({ sessionId })).code).toBe('NO_SESSION');
  });

  it('invalid input is BAD_INPUT, never a throw', async () => {
    expect(errorOf(await handlers.openSession({})).code).toBe('BAD_INPUT');
    expect(errorOf(await handlers.openSession(null)).code).toBe('BAD_INPUT');
    expect(errorOf(await handlers.getView({ sessionId: 'x', index: -1 })).code).toBe('BAD_INPUT');
    expect(errorOf(await handlers.listEvents({ sessionId: 'x', from: 0, count: 100_000 })).code).toBe('BAD_INPUT');
    expect(errorOf(await handlers.openSession({ path: SMALL, format: 'word' })).code).toBe('BAD_INPUT');
    expect(errorOf(await dispatch(handlers, 'constructor', {})).code).toBe('UNKNOWN_METHOD');
    expect(errorOf(await dispatch(handlers, 'deleteEverything', {})).code).toBe('UNKNOWN_METHOD');
  });

  it('unknown branches and requests are error values', async () => {
    const { sessionId } = await open();
    expect(errorOf(await handlers.listRequests({ sessionId, branch: 'nope' }))).toMatchObject({
      code: 'NO_BRANCH',
      message: expect.stringContaining('main'),
    });
    expect(errorOf(await handlers.getView({ sessionId, index: 4 }))).toMatchObject({
      code: 'NO_REQUEST',
      message: expect.stringContaining('4 requests'),
    });
  });

  it('an unreadable file is UNREADABLE with the reason', async () => {
    expect(errorOf(await handlers.openSession({ path: 'fixtures/palimpsest/does-not-exist.jsonl' })).code).toBe('UNREADABLE');
    expect(errorOf(await handlers.openSession({ path: 'fixtures/bad-input/empty.jsonl' })).code).toBe('UNREADABLE');
    expect(errorOf(await handlers.openSession({ path: 'fixtures' })).code).toBe('UNREADABLE');
    expect(registry.size).toBe(0);
    expect(progress.at(-1)?.phase).toBe('failed');
    expect(logged).toEqual([]);
  });
});

describe('SessionRegistry', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'palimpsest-api-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('opens only the allowed paths (compared after resolving)', async () => {
    const other = join(dir, 'other.jsonl');
    writeFileSync(other, '{"kind":"session","format":"palimpsest","version":1,"id":"o"}\n');
    const registry = new SessionRegistry({ allow: [SMALL] });
    const handlers = createHandlers({ registry, initialPaths: [SMALL] });
    expect(value(await handlers.openSession({ path: `./${SMALL}` })).format).toBe('palimpsest');
    expect(errorOf(await handlers.openSession({ path: other })).code).toBe('FORBIDDEN_PATH');
    expect(errorOf(await handlers.openSession({ path: '/etc/passwd' })).code).toBe('FORBIDDEN_PATH');
    registry.dispose();
  });

  it('caps the number of open sessions and disposes them all', async () => {
    const registry = new SessionRegistry({ allow: 'any', maxSessions: 2 });
    const handlers = createHandlers({ registry, initialPaths: [], logError: () => undefined });
    value(await handlers.openSession({ path: SMALL }));
    const second = value(await handlers.openSession({ path: SMALL }));
    expect(errorOf(await handlers.openSession({ path: SMALL })).code).toBe('LIMIT');
    expect(registry.size).toBe(2);
    registry[Symbol.dispose]();
    expect(registry.size).toBe(0);
    expect(errorOf(await handlers.listRequests({ sessionId: second.sessionId })).code).toBe('NO_SESSION');
    expect(errorOf(await handlers.openSession({ path: SMALL })).code).toBe('INTERNAL');
  });
});
