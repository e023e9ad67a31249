import { describe, expect, it } from 'vitest';
import { entryDetails, entryOf, modelRow, modelSpec, type ChainEntry } from '../../../src/renderer/rerun/chain';
import type { PinnedModelRow } from '../../../src/shared/api/contract';

const base: ChainEntry = { key: 1, provider: 'anthropic', model: 'claude-haiku-4-5', baseUrl: '', window: '' };

describe('a chain entry as the panel edits it', () => {
  it('is "provider:model" when it pins nothing more, the object form when it does', () => {
    expect(modelSpec(base)).toEqual({ ok: true, value: 'anthropic:claude-haiku-4-5' });
    expect(
      modelSpec({
        ...base,
        temperature: ' 0.2 ',
        reasoning: 'high',
        maxOutput: '4,000',
        prices: '1, 5, 0.1, 1.25',
        keyEnv: 'WORK_ANTHROPIC_API_KEY',
      }),
    ).toEqual({
      ok: true,
      value: {
        provider: 'anthropic',
        model: 'claude-haiku-4-5',
        keyEnv: 'WORK_ANTHROPIC_API_KEY',
        params: { temperature: 0.2, maxOutput: 4000, reasoning: 'high' },
        prices: { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
      },
    });
  });

  it('says what is wrong with each field, naming the model', () => {
    const bad = (patch: Partial<ChainEntry>) => {
      const m = modelSpec({ ...base, ...patch });
      return m.ok ? '' : m.error;
    };
    expect(bad({ temperature: '2.5' })).toBe('The temperature of anthropic:claude-haiku-4-5 must be a number from 0 to 2.');
    expect(bad({ reasoning: 'max' })).toContain('low, medium or high');
    expect(bad({ maxOutput: '0' })).toContain('output ceiling');
    expect(bad({ prices: '1' })).toContain('USD per million tokens');
    expect(bad({ keyEnv: 'HOME' })).toContain('*_API_KEY');
    expect(bad({ model: ' ' })).toBe('The anthropic entry names no model.');
  });

  it('goes to settings and comes back the same, and lists what it pins', () => {
    const row: PinnedModelRow = {
      provider: 'openai',
      model: 'llama3.1:8b',
      baseUrl: 'http://127.0.0.1:11434/v1',
      window: 131072,
      keyEnv: 'OLLAMA_API_KEY',
      params: { temperature: 0, maxOutput: 2000, reasoning: 'low' },
      prices: { input: 0, output: 0, cacheWrite: 0.5 },
    };
    const e = entryOf(row, 7);
    // The cache read stays unpriced (not free).
    expect(e.prices).toBe('0,0,,0.5');
    expect(modelRow(e)).toEqual({ ok: true, value: row });
    expect(modelRow(base)).toEqual({ ok: true, value: { provider: 'anthropic', model: 'claude-haiku-4-5' } });
    expect(entryDetails(e)).toEqual([
      'window 131072',
      'temperature 0',
      'reasoning low',
      'max output 2000',
      '$0 in / $0 out per M / $0.5 cache write',
      'key from OLLAMA_API_KEY',
    ]);
  });
});
