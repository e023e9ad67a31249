import { describe, expect, it } from 'vitest';
import { envWithStoredKeys } from '../../../src/main/eval/keys-env';
import type { KeyReader } from '../../../src/main/providers/keys';
import { parseSpec } from '../../../src/shared/eval/spec';

/*
 * The runner reads keys from its environment only; an eval started from the desktop app gets the
 * keys the user stored, under the variable each model reads first, and only where that is unset.
 */

function spec(models: unknown[], judge?: unknown) {
  const r = parseSpec(
    { name: 's', traces: [{ path: 't.jsonl' }], strategies: [{ id: 'one-shot' }], models, ...(judge ? { judge: { model: judge } } : {}) },
    'spec.yaml',
  );
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

const vault = (stored: Record<string, string>, asked: string[] = []): KeyReader => ({
  get: (slot) => {
    asked.push(slot);
    return Promise.resolve({ ok: true, value: stored[slot] ?? null });
  },
});

describe('stored keys for an eval run', () => {
  it('puts a stored key under the variable its model reads first, when that is unset', async () => {
    const env = await envWithStoredKeys(
      spec(['openai:gpt-5-mini', 'mock:m'], 'anthropic:claude-haiku-4-5'),
      { HOME: '/h' },
      vault({ openai: 'sk-stored-openai', anthropic: 'sk-stored-ant' }),
    );
    expect(env).toEqual({ HOME: '/h', OPENAI_API_KEY: 'sk-stored-openai', ANTHROPIC_API_KEY: 'sk-stored-ant' });
  });

  it('leaves a variable that is set, a custom endpoint without keyEnv, the mock, and a host without a store alone', async () => {
    const asked: string[] = [];
    const env = { OPENAI_API_KEY: 'sk-env' };
    const s = spec(['openai:gpt-5-mini', { provider: 'openai', model: 'llama', baseUrl: 'http://127.0.0.1:11434/v1' }, 'mock:m']);
    expect(await envWithStoredKeys(s, env, vault({ openai: 'sk-stored' }, asked))).toBe(env);
    expect(asked).toEqual([]);
    expect(await envWithStoredKeys(s, {}, null)).toEqual({});
  });

  it('uses the keyEnv name a model gives, and says nothing of a store that cannot be read', async () => {
    const s = spec([{ provider: 'openai', model: 'x', baseUrl: 'https://router.example/v1', keyEnv: 'ROUTER_API_KEY' }]);
    expect(await envWithStoredKeys(s, {}, vault({ ROUTER_API_KEY: 'rk-1' }))).toEqual({ ROUTER_API_KEY: 'rk-1' });
    const broken: KeyReader = { get: () => Promise.resolve({ ok: false, error: 'locked' }) };
    expect(await envWithStoredKeys(s, {}, broken)).toEqual({});
  });
});
