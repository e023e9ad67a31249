import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandlers, type Handlers } from '../../../src/main/api/handlers';
import { SessionRegistry } from '../../../src/main/api/sessions';
import { literalPattern, searchSession, snippetAround } from '../../../src/main/search/session-search';
import { value } from '../api/results';

const BASIC = 'fixtures/palimpsest/basic.jsonl';
const BRANCHES = 'fixtures/palimpsest/branches.jsonl';

let registry: SessionRegistry;
let handlers: Handlers;
let basic: string;

beforeAll(async () => {
  registry = new SessionRegistry({ allow: 'any' });
  handlers = createHandlers({ registry, initialPaths: [] });
  basic = value(await handlers.openSession({ path: BASIC })).sessionId;
});
afterAll(() => registry.dispose());

describe('searchSession', () => {
  it('finds a tool result, case-insensitively, and names the first request that can show it', async () => {
    const r = value(await handlers.searchSession({ sessionId: basic, query: 'CLAMPS A PAGE past' }));
    const first = r.matches[0];
    expect(first).toMatchObject({ seq: 6, kind: 'item', item: 't1', where: 'tool result', request: 1, branch: 'main' });
    expect(first?.snippet.slice(first.at, first.at + first.length)).toBe('clamps a page past');
    expect(r.total).toBe(r.matches.length);
    expect(r.truncated).toBe(false);
  });

  it('searches the system prompt, summaries and requests, and maps a response to its own request', async () => {
    const system = value(await handlers.searchSession({ sessionId: basic, query: 'mask_tool_result with its call id' }));
    expect(system.matches[0]).toMatchObject({ seq: 1, kind: 'header', where: 'system prompt text', request: 0 });
    const summary = value(await handlers.searchSession({ sessionId: basic, query: 'compacted-summary' }));
    expect(summary.matches.map((m) => m.item)).toContain('k1');
    const request = value(await handlers.searchSession({ sessionId: basic, query: 'req_01' }));
    expect(request.matches[0]).toMatchObject({ seq: 3, kind: 'request', request: 0 });
  });

  it('lists at most `max` matches and still counts them all', async () => {
    const all = value(await handlers.searchSession({ sessionId: basic, query: 'paginate' }));
    expect(all.total).toBeGreaterThan(3);
    const few = value(await handlers.searchSession({ sessionId: basic, query: 'paginate', max: 2 }));
    expect(few.matches).toHaveLength(2);
    expect(few).toMatchObject({ total: all.total, truncated: true });
    expect(value(await handlers.searchSession({ sessionId: basic, query: 'no such text anywhere' }))).toMatchObject({
      total: 0,
      matches: [],
    });
  });

  it('re-reads long texts to search them whole, and counts those it had no time for', async () => {
    const inspector = registry.get(basic).inspector;
    // The tool result at seq 6 is longer than what is kept in memory; the phrase is past its preview.
    const whole = await searchSession(inspector, 'clamps a page past', 'main', 10);
    expect(whole).toMatchObject({ partial: 0 });
    expect(whole.matches.map((m) => m.seq)).toContain(6);
    const rushed = await searchSession(inspector, 'clamps a page past', 'main', 10, { budgetMs: 0 });
    expect(rushed.partial).toBeGreaterThan(0);
    expect(rushed.matches.map((m) => m.seq)).not.toContain(6);
  });

  it('takes the query as a literal, never as a pattern', async () => {
    expect(value(await handlers.searchSession({ sessionId: basic, query: '.*' })).total).toBe(0);
    expect(literalPattern('a+b (c)').test('x A+B (C) y')).toBe(true);
  });

  it('validates its input and the branch', async () => {
    expect(await handlers.searchSession({ sessionId: basic, query: '' })).toMatchObject({ ok: false, error: { code: 'BAD_INPUT' } });
    expect(await handlers.searchSession({ sessionId: basic, query: 'x', max: 0 })).toMatchObject({
      ok: false,
      error: { code: 'BAD_INPUT' },
    });
    expect(await handlers.searchSession({ sessionId: basic, query: 'x', branch: 'nope' })).toMatchObject({
      ok: false,
      error: { code: 'NO_BRANCH' },
    });
    expect(await handlers.searchSession({ sessionId: 'gone', query: 'x' })).toMatchObject({ ok: false, error: { code: 'NO_SESSION' } });
  });

  it('searches the events of the branch asked for', async () => {
    const id = value(await handlers.openSession({ path: BRANCHES })).sessionId;
    const info = value(await handlers.listRequests({ sessionId: id }));
    const r = value(await handlers.searchSession({ sessionId: id, query: 'e', branch: info.branch, max: 1000 }));
    expect(r.matches.every((m) => typeof m.seq === 'number')).toBe(true);
    expect(r.branch).toBe(info.branch);
  });
});

describe('snippets', () => {
  it('keep the match in place, on one line, with ellipses where text was cut', () => {
    const text = `${'a'.repeat(100)}\nNEEDLE\t${'b'.repeat(200)}`;
    const s = snippetAround(text, 101, 6);
    expect(s.snippet.startsWith('…')).toBe(true);
    expect(s.snippet.endsWith('…')).toBe(true);
    expect(s.snippet).not.toMatch(/[\n\t]/);
    expect(s.snippet.slice(s.at, s.at + s.length)).toBe('NEEDLE');
  });
});
