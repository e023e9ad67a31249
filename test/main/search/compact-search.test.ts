import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSession } from '../../../bench/generate';
import { CompactLog } from '../../../src/main/session/compact-log';
import { SessionInspector } from '../../../src/main/session/inspector';
import { loadSession } from '../../../src/main/session/load';
import type { LoadedSession } from '../../../src/main/session/types';
import { searchSession } from '../../../src/main/search/session-search';

const dir = mkdtempSync(join(tmpdir(), 'palimpsest-compact-search-'));
const path = join(dir, 'session.jsonl');
let array: LoadedSession;
let compact: LoadedSession;

/** Lines a search must read whole on a compact log: escapes, joined fields, defaults, long texts. */
const EXTRA: readonly string[] = [
  // "café replay" written with a \u escape: the line's text does not hold "café".
  '{"kind":"item","item":{"id":"esc1","role":"user","blocks":[{"type":"text","text":"caf\\u00e9 replay \\u0041BC"}]}}',
  // A tool call's text is its name, a space and its input.
  '{"kind":"item","item":{"id":"call1","role":"assistant","blocks":[{"type":"tool_call","id":"c1","name":"read","input":"{\\"path\\":\\"a/b.ts\\"}"}]}}',
  '{"kind":"item","item":{"id":"res1","role":"tool","blocks":[{"type":"tool_result","callId":"c1","content":[{"type":"text","text":"line one\\nline two\\ttab \\"quoted\\" back\\\\slash"}]}]}}',
  // A request without a purpose: "agent" is the default, in no line.
  '{"kind":"request","id":"req_extra"}',
  '{"kind":"record","type":"hook","summary":"Kelvin \\u212a and long \\u017f"}',
  // Long enough to be elided, on a short line: the compact log keeps the line.
  `{"kind":"item","item":{"id":"long1","role":"tool","blocks":[{"type":"tool_result","callId":"c1","content":[{"type":"text","text":"${'needle in the hay '.repeat(30)}"}]}]}}`,
];

const QUERIES: readonly string[] = [
  'replay',
  'REPLAY',
  'café',
  'caf',
  'abc',
  'read {',
  'read',
  'path',
  '"path"',
  'a/b',
  'agent',
  'req_extra',
  'line two',
  'two\ttab',
  'quoted',
  '"quoted"',
  'back\\slash',
  'kelvin',
  'k',
  'ſ',
  's',
  '日本',
  'needle',
  'hay needle',
  'zzz-no-such-text',
  'é',
];

beforeAll(async () => {
  generateSession(path, { seed: 5, profile: 'small', targetEvents: 3_000 });
  appendFileSync(path, EXTRA.join('\n') + '\n');
  array = await loadSession(path, { compactLog: false });
  compact = await loadSession(path, { compactLog: true, threads: 1 });
  expect(compact.events).toBeInstanceOf(CompactLog);
});
afterAll(async () => {
  await array.dispose();
  await compact.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe('search over a compact log', () => {
  for (const query of QUERIES) {
    it(`finds what the array log finds: ${JSON.stringify(query)}`, async () => {
      const want = await searchSession(new SessionInspector(array), query, 'main', 10_000, { budgetMs: 60_000 });
      const got = await searchSession(new SessionInspector(compact), query, 'main', 10_000, { budgetMs: 60_000 });
      expect(got).toEqual(want);
    });
  }

  it('finds texts behind escapes, in joined fields and in defaults', async () => {
    const found = async (query: string): Promise<string[]> =>
      (await searchSession(new SessionInspector(compact), query, 'main', 100, { budgetMs: 60_000 })).matches.map(
        (m) => `${m.kind}:${m.item ?? m.where}`,
      );
    expect(await found('café')).toContain('item:esc1');
    expect(await found('read {')).toContain('item:call1');
    expect(await found('req_extra agent')).toContain('request:request');
    expect(await found('ſ')).toContain('record:record');
  });
});
