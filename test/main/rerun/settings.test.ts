import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readSettings, settingsFile, writeChain } from '../../../src/main/rerun/settings';
import type { PinnedModel } from '../../../src/shared/rerun/pinned';

describe('re-run settings (settings.json under the data folder)', () => {
  let dir: string;
  let env: Record<string, string>;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'palimpsest-settings-'));
    env = { PALIMPSEST_DATA_DIR: join(dir, 'data') };
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const chain: PinnedModel[] = [
    {
      provider: 'anthropic',
      model: 'claude-haiku-4-5',
      params: { maxOutput: 4000, reasoning: 'low' },
      window: 200_000,
      prices: { input: 1, output: 5, cacheRead: 0.1 },
    },
    { provider: 'openai', model: 'llama3.1:8b', baseUrl: 'http://127.0.0.1:11434/v1', params: { temperature: 0.2 }, window: 131_072 },
  ];

  it('a missing file is an empty chain, without a problem', async () => {
    expect(await readSettings(env)).toEqual({ file: settingsFile(env), chain: [], problem: null });
  });

  it('keeps the chain whole and in order, and leaves no temporary file behind', async () => {
    await writeChain(chain, env);
    const back = await readSettings(env);
    expect(back.problem).toBeNull();
    expect(back.chain).toEqual(chain);
    expect(await readdir(join(dir, 'data'))).toEqual(['settings.json']);
    expect(JSON.parse(await readFile(settingsFile(env), 'utf8'))).toMatchObject({ format: 'palimpsest-settings', version: 1 });
    await writeChain([], env);
    expect((await readSettings(env)).chain).toEqual([]);
  });

  it('keeps the last of several writes asked for at once', async () => {
    const one = (model: string): PinnedModel[] => [{ provider: 'mock', model, params: {}, window: null }];
    await Promise.all(['a', 'b', 'c', 'd', 'e'].map((m) => writeChain(one(m), env)));
    expect((await readSettings(env)).chain).toEqual(one('e'));
    expect(await readdir(join(dir, 'data'))).toEqual(['settings.json']);
  });

  it('a damaged file is reported with its path and read as an empty chain, never half used', async () => {
    await writeChain(chain, env);
    await writeFile(settingsFile(env), '{"format":"palimpsest-settings",');
    const broken = await readSettings(env);
    expect(broken.chain).toEqual([]);
    expect(broken.problem).toContain(settingsFile(env));
    expect(broken.problem).toContain('not JSON');
    await writeFile(
      settingsFile(env),
      JSON.stringify({ format: 'palimpsest-settings', version: 1, summarizationChain: [{ provider: 'nope', model: 'x' }] }),
    );
    const invalid = await readSettings(env);
    expect(invalid.chain).toEqual([]);
    expect(invalid.problem).toMatch(/summarizationChain\.0\.provider/);
  });

  it('refuses an invalid chain before writing anything', async () => {
    const bad = [{ provider: 'openai', model: 'm', params: { temperature: 7 }, window: null }] as unknown as PinnedModel[];
    await expect(writeChain(bad, env)).rejects.toThrow('not a valid summarization chain: summarizationChain.0.params.temperature');
    expect((await readSettings(env)).problem).toBeNull();
    // Not even the data folder was made.
    await expect(readdir(join(dir, 'data'))).rejects.toThrow(/ENOENT/);
  });
});
