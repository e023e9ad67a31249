import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runBuilt } from './run-built';

/*
 * The persistent token count cache as a user meets it: a second `tokens` or `inspect --json` of a
 * session counts nothing and gives the same figures; a damaged cache is said once and changes
 * nothing; `--no-cache` neither reads nor writes it.
 */

const SESSION = 'fixtures/claude-code/short.jsonl';
const base = mkdtempSync(join(tmpdir(), 'palimpsest-cli-counts-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const envWith = (dir: string): NodeJS.ProcessEnv => ({ ...process.env, PALIMPSEST_CACHE_DIR: dir });

interface Counting {
  texts: number;
  fromCache: number;
}
const tokensJson = async (dir: string, ...more: string[]) => {
  const r = await runBuilt(['tokens', SESSION, '--json', ...more], 60_000, envWith(dir));
  const j = JSON.parse(r.stdout) as { counting: Counting; requests: unknown };
  return { ...r, j };
};

describe('the token count cache of the CLI', () => {
  it('counts a session once: the second `tokens` and `inspect --json` take every count from the cache', async () => {
    const dir = join(base, 'a');
    const first = await tokensJson(dir);
    expect(first.stderr).toBe('');
    expect(first.j.counting.texts).toBeGreaterThan(0);
    const second = await tokensJson(dir);
    expect(second.j.counting.texts).toBe(0);
    expect(second.j.counting.fromCache).toBeGreaterThan(0);
    expect(second.j.requests).toEqual(first.j.requests);
    const fresh = await runBuilt(['inspect', SESSION, '--json', '--no-cache'], 60_000, envWith(join(base, 'none')));
    const cached = await runBuilt(['inspect', SESSION, '--json'], 60_000, envWith(dir));
    expect(cached.stdout).toBe(fresh.stdout);
    expect(cached.code).toBe(fresh.code);
  });

  it('says once that a damaged cache is rebuilt, and gives the same figures', async () => {
    const dir = join(base, 'b');
    const clean = await tokensJson(dir);
    writeFileSync(join(dir, 'token-counts.bin'), 'PLMTOK01 and then nonsense');
    const damaged = await tokensJson(dir);
    expect(damaged.stderr.match(/token count cache/g)).toHaveLength(1);
    expect(damaged.code).toBe(clean.code);
    expect(damaged.j.requests).toEqual(clean.j.requests);
    expect((await tokensJson(dir)).stderr).toBe('');
  });

  it('--no-cache neither reads nor writes it', async () => {
    const dir = join(base, 'c');
    await tokensJson(dir, '--no-cache');
    expect(() => readFileSync(join(dir, 'token-counts.bin'))).toThrow();
  });
});
