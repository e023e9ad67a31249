import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiFailure } from '../../../src/main/access/failure';
import { Library } from '../../../src/main/library/library';
import { unmark } from '../../../src/main/library/library-search';
import { HIT_END, HIT_START } from '../../../src/main/catalog/search';
import { LIBRARY_CONTRACT } from '../../../src/shared/api/library-contract';

/*
 * The library's search over the machine's sessions (the API's searchLibrary): a fake home with a
 * real Claude Code session that has a compaction, and a Codex rollout; the index in the home's
 * cache folder.
 */

let home: string;
const DAG = 'dag_compact_after_rewind_preserved.jsonl';

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'palimpsest-home-'));
  mkdirSync(join(home, '.claude', 'projects', '-home-dev-shop'), { recursive: true });
  copyFileSync(`fixtures/claude-code/${DAG}`, join(home, '.claude', 'projects', '-home-dev-shop', DAG));
  copyFileSync('fixtures/claude-code/short.jsonl', join(home, '.claude', 'projects', '-home-dev-shop', 'short.jsonl'));
  const day = join(home, '.codex', 'sessions', '2026', '02', '23');
  mkdirSync(day, { recursive: true });
  const rollout = 'rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl';
  copyFileSync(`fixtures/codex/${rollout}`, join(day, rollout));
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("the library's search", () => {
  it('answers in the contract shape, with the match marked, the event to select and the fate', async () => {
    const lib = new Library({ machine: { home, env: {} } });
    const r = await lib.search({ query: '"After compaction"', has: 'compaction' });
    expect(LIBRARY_CONTRACT.searchLibrary.output.safeParse(r).success).toBe(true);
    expect(r.sessions).toBe(3);
    expect(r.read).toBe(3);
    const h = r.hits[0];
    expect(h?.path.endsWith(DAG)).toBe(true);
    const mark = h?.marks[0];
    expect(mark && h?.snippet.slice(mark.at, mark.at + mark.length)).toBe('After compaction');
    expect(h?.seq).toBeTypeOf('number');
    // A hit's session may be opened: it is a session of this machine.
    expect(await lib.allows(h?.path as string)).toBe(true);
    // The second search reads nothing again.
    expect((await lib.search({ query: 'compaction' })).read).toBe(0);
  });

  it('turns a query FTS5 rejects and a bad --since into BAD_INPUT', async () => {
    const lib = new Library({ machine: { home, env: {} } });
    await expect(lib.search({ query: '"unbalanced' })).rejects.toMatchObject({ code: 'BAD_INPUT' });
    await expect(lib.search({ query: 'x', since: 'yesterday' })).rejects.toBeInstanceOf(ApiFailure);
    await expect(new Library({ machine: false }).search({ query: 'x' })).rejects.toMatchObject({ code: 'NOT_AVAILABLE' });
  });

  it('takes the marks out of a snippet', () => {
    expect(unmark(`a ${HIT_START}b${HIT_END} c ${HIT_START}dé${HIT_END}`)).toEqual({
      snippet: 'a b c dé',
      marks: [
        { at: 2, length: 1 },
        { at: 6, length: 2 },
      ],
    });
  });
});
