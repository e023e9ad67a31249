import { describe, expect, it } from 'vitest';
import {
  PinnedModel,
  SummarizationChain,
  modelLabel,
  parseModelSpec,
  pinnedFromRoute,
  resolveSummarizationModels,
} from '../../../src/shared/rerun/pinned';

/* Pinned models: parsing "PROVIDER:MODEL" with clear errors, labels, and cosh's chain resolution. */

describe('parseModelSpec', () => {
  it('parses a spec with options, defaulting params and window', () => {
    const r = parseModelSpec('anthropic:claude-sonnet-4-5', {
      window: 200_000,
      params: { maxOutput: 4096 },
      prices: { input: 3, output: 15, cacheRead: 0.3 },
    });
    expect(r).toEqual({
      ok: true,
      value: {
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        window: 200_000,
        params: { maxOutput: 4096 },
        prices: { input: 3, output: 15, cacheRead: 0.3 },
      },
    });
    expect(parseModelSpec('gemini:gemini-2.5-pro')).toEqual({
      ok: true,
      value: { provider: 'gemini', model: 'gemini-2.5-pro', params: {}, window: null },
    });
    // The mock needs no baseUrl: the re-run starts one in process.
    expect(parseModelSpec('mock:scripted').ok).toBe(true);
  });

  it('splits at the first colon, so model tags survive', () => {
    const r = parseModelSpec('openai:llama3.1:8b', { baseUrl: 'http://127.0.0.1:11434/v1' });
    expect(r.ok && r.value.model).toBe('llama3.1:8b');
  });

  it.each([
    ['claude-sonnet', 'is not PROVIDER:MODEL'],
    ['claude:opus', 'Unknown provider "claude"'],
    ['anthropic:', 'names no model'],
  ])('rejects %s clearly', (spec, words) => {
    const r = parseModelSpec(spec);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toContain(words);
  });

  it('names the bad option', () => {
    const bad = (o: Parameters<typeof parseModelSpec>[1]) => {
      const r = parseModelSpec('openai:gpt-4.1', o);
      return r.ok ? 'ok' : r.error;
    };
    expect(bad({ baseUrl: 'ftp://example.com' })).toContain('baseUrl');
    expect(bad({ window: -1 })).toContain('window');
    expect(bad({ keyEnv: 'sk-live-123' })).toContain('keyEnv');
    expect(bad({ params: { reasoning: 'max' as never } })).toContain('params.reasoning');
    expect(bad({ params: { maxOutput: 1.5 } })).toContain('params.maxOutput');
    expect(bad({ prices: { input: -1, output: 1 } })).toContain('prices.input');
  });

  it('rejects unknown keys (a key pasted where keyEnv belongs is not silently kept)', () => {
    expect(PinnedModel.safeParse({ provider: 'openai', model: 'x', apiKey: 'sk-123' }).success).toBe(false);
  });
});

describe('labels and chains', () => {
  it('modelLabel is provider:model', () => {
    expect(modelLabel({ provider: 'openai-responses', model: 'gpt-5' })).toBe('openai-responses:gpt-5');
  });

  it('an empty chain falls back to the session connector; a non-empty one is used alone, in order', () => {
    const a = PinnedModel.parse({ provider: 'anthropic', model: 'a' });
    const b = PinnedModel.parse({ provider: 'gemini', model: 'b' });
    const agent = PinnedModel.parse({ provider: 'openai', model: 'agent' });
    expect(resolveSummarizationModels([], agent)).toEqual([agent]);
    expect(resolveSummarizationModels([b, a], agent)).toEqual([b, a]);
    expect(resolveSummarizationModels([], null)).toEqual([]);
    expect(SummarizationChain.parse([])).toEqual([]);
  });

  it('a session route becomes the connector, with its reasoning and output setting', () => {
    const r = pinnedFromRoute({ provider: 'anthropic', model: 'claude-x', window: 200_000, maxOutput: 2000, reasoning: 'high' });
    expect(r).toEqual({
      ok: true,
      value: { provider: 'anthropic', model: 'claude-x', window: 200_000, params: { maxOutput: 2000, reasoning: 'high' } },
    });
    const unknownEffort = pinnedFromRoute({ provider: 'openai', model: 'gpt', reasoning: 'enabled' });
    expect(unknownEffort.ok && unknownEffort.value.params).toEqual({});
    expect(pinnedFromRoute(null).ok).toBe(false);
    const foreign = pinnedFromRoute({ provider: 'deepseek', model: 'v4' });
    expect(!foreign.ok && foreign.error).toContain('Unknown provider "deepseek"');
  });
});
