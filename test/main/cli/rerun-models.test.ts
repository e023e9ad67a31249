import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseArgs } from '../../../src/main/command/args';
import { chainOf, parsePrice } from '../../../src/main/cli/rerun-models';
import { RERUN_SPEC } from '../../../src/main/cli/rerun';
import { settingsFile, writeChain } from '../../../src/main/rerun/settings';

const args = (...a: string[]) => parseArgs(a, RERUN_SPEC);

describe('palimpsest rerun: the summarization chain', () => {
  let dir: string;
  let env: Record<string, string>;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'palimpsest-chain-'));
    env = { PALIMPSEST_DATA_DIR: dir };
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('pins the one --model with its endpoint, window, parameters and prices', async () => {
    const c = await chainOf(
      args(
        's.jsonl',
        '--model',
        'openai:llama3.1:8b',
        '--base-url',
        'http://127.0.0.1:11434/v1',
        '--model-window',
        '131072',
        '--temperature',
        '0.2',
        '--reasoning',
        'low',
        '--model-max-output',
        '3000',
        '--price',
        '0.5,1.5,0.05',
      ),
      env,
    );
    expect(c.from).toBe('flags');
    expect(c.models).toEqual([
      {
        provider: 'openai',
        model: 'llama3.1:8b',
        baseUrl: 'http://127.0.0.1:11434/v1',
        window: 131_072,
        params: { temperature: 0.2, reasoning: 'low', maxOutput: 3000 },
        prices: { input: 0.5, output: 1.5, cacheRead: 0.05 },
      },
    ]);
  });

  it('uses the chain kept in settings when no --model is given, and the session route with --session-model or an empty chain', async () => {
    expect(await chainOf(args('s.jsonl'), env)).toEqual({ models: [], from: 'session', settingsFile: null });
    await writeChain(
      [
        { provider: 'mock', model: 'a', params: {}, window: null },
        { provider: 'anthropic', model: 'claude-haiku-4-5', params: { maxOutput: 2000 }, window: null },
      ],
      env,
    );
    const c = await chainOf(args('s.jsonl'), env);
    expect(c.from).toBe('settings');
    expect(c.settingsFile).toBe(settingsFile(env));
    expect(c.models.map((m) => `${m.provider}:${m.model}`)).toEqual(['mock:a', 'anthropic:claude-haiku-4-5']);
    expect((await chainOf(args('s.jsonl', '--session-model'), env)).models).toEqual([]);
    expect((await chainOf(args('s.jsonl', '--model', 'mock:b'), env)).models.map((m) => m.model)).toEqual(['b']);
  });

  it('says what is wrong, as a usage error: a damaged settings file, a flag with no model, a flag for several models, bad values', async () => {
    await writeFile(settingsFile(env), 'not json');
    await expect(chainOf(args('s.jsonl'), env)).rejects.toThrow(/not JSON.*--session-model/);
    await expect(chainOf(args('s.jsonl', '--temperature', '0.3'), env)).rejects.toThrow('--temperature pins a --model');
    await expect(chainOf(args('s.jsonl', '--model', 'mock:a', '--model', 'mock:b', '--price', '1,2'), env)).rejects.toThrow(
      '--price pins one --model',
    );
    await expect(chainOf(args('s.jsonl', '--model', 'mock:a', '--temperature', '3'), env)).rejects.toThrow('from 0 to 2');
    await expect(chainOf(args('s.jsonl', '--model', 'mock:a', '--reasoning', 'max'), env)).rejects.toThrow('low, medium, high');
    await expect(chainOf(args('s.jsonl', '--model', 'mock:a', '--session-model'), env)).rejects.toThrow('contradict');
  });

  it('reads prices as USD per million tokens: input and output, then cache read and write', () => {
    expect(parsePrice('3,15')).toEqual({ input: 3, output: 15 });
    expect(parsePrice('3, 15, 0.3, 3.75')).toEqual({ input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 });
    expect(parsePrice('3,15,,3.75')).toEqual({ input: 3, output: 15, cacheWrite: 3.75 });
    for (const bad of ['3', '3,', ',3', '3,-1', '1,2,3,4,5', 'a,b', '1,2,x']) expect(() => parsePrice(bad)).toThrow('USD per million');
  });
});
