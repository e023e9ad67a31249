import type { PinnedModel, ProviderId } from '../../shared/rerun/pinned';
import { modelLabel } from '../../shared/rerun/pinned';
import type { StoreResult } from './key-store';

/*
 * Where a pinned model's key comes from, in order:
 * 1. `keyEnv` given: that environment variable, else the key stored under that name;
 * 2. no `keyEnv`, official endpoint (no baseUrl): the provider's standard variable
 *    (OPENAI_API_KEY; ANTHROPIC_API_KEY; GEMINI_API_KEY, then GOOGLE_API_KEY), else the key stored
 *    for the provider;
 * 3. no `keyEnv`, custom baseUrl: no key. A provider's key is never sent to another host just
 *    because it is in the environment (an OpenAI key must not go to an OpenRouter or LAN URL by
 *    default); name the variable with keyEnv to send one. Local servers need none.
 * The mock provider never gets a key.
 * The renderer only ever sees keyStatus(): whether a key is set, from where, and its last 4.
 */

export type Env = Readonly<Record<string, string | undefined>>;

export const STANDARD_KEY_ENV: Readonly<Record<ProviderId, readonly string[]>> = {
  openai: ['OPENAI_API_KEY'],
  'openai-responses': ['OPENAI_API_KEY'],
  anthropic: ['ANTHROPIC_API_KEY'],
  gemini: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
  mock: [],
};

/** Stored-key name for the providers' own endpoints (both OpenAI protocols share one key). */
const FAMILY: Readonly<Record<ProviderId, string | null>> = {
  openai: 'openai',
  'openai-responses': 'openai',
  anthropic: 'anthropic',
  gemini: 'gemini',
  mock: null,
};

export interface KeyReader {
  get(slot: string): Promise<StoreResult<string | null>>;
}

export type KeySource = 'env' | 'stored';

export interface ResolvedKey {
  readonly key: string;
  readonly source: KeySource;
  /** The environment variable or stored-key name it came from. */
  readonly from: string;
}

/** The stored-key name a model's key is kept under; null when it takes no key. */
export function keySlot(model: Pick<PinnedModel, 'provider' | 'keyEnv' | 'baseUrl'>): string | null {
  if (model.provider === 'mock') return null;
  if (model.keyEnv !== undefined) return model.keyEnv;
  if (model.baseUrl !== undefined) return null;
  return FAMILY[model.provider];
}

/** Environment variables consulted for this model, in order. */
export function keyEnvNames(model: Pick<PinnedModel, 'provider' | 'keyEnv' | 'baseUrl'>): readonly string[] {
  if (model.provider === 'mock') return [];
  if (model.keyEnv !== undefined) return [model.keyEnv];
  if (model.baseUrl !== undefined) return [];
  return STANDARD_KEY_ENV[model.provider];
}

/** An official endpoint cannot be called without a key; custom endpoints and the mock can. */
export function needsKey(model: Pick<PinnedModel, 'provider' | 'baseUrl' | 'keyEnv'>): boolean {
  return model.provider !== 'mock' && (model.baseUrl === undefined || model.keyEnv !== undefined);
}

export function missingKeyMessage(model: PinnedModel): string {
  const names = keyEnvNames(model);
  const env = names.length > 0 ? `set ${names.join(' or ')}` : 'name its variable with keyEnv';
  return `No API key for ${modelLabel(model)}: ${env}, or store a key.`;
}

export async function resolveKey(model: PinnedModel, env: Env, store: KeyReader | null): Promise<StoreResult<ResolvedKey | null>> {
  for (const name of keyEnvNames(model)) {
    const v = env[name]?.trim();
    if (v) return { ok: true, value: { key: v, source: 'env', from: name } };
  }
  const slot = keySlot(model);
  if (slot === null || store === null) return { ok: true, value: null };
  const stored = await store.get(slot);
  if (!stored.ok) return stored;
  return { ok: true, value: stored.value ? { key: stored.value, source: 'stored', from: slot } : null };
}

/** What the renderer may know about a key. Never the key. */
export interface KeyStatus {
  readonly set: boolean;
  readonly source: KeySource | null;
  /** Last 4 characters, for recognising which key it is; null for keys too short to show any of safely. */
  readonly last4: string | null;
}

export async function keyStatus(model: PinnedModel, env: Env, store: KeyReader | null): Promise<KeyStatus> {
  const r = await resolveKey(model, env, store);
  if (!r.ok || r.value === null) return { set: false, source: null, last4: null };
  const k = r.value.key;
  return { set: true, source: r.value.source, last4: k.length >= 16 ? k.slice(-4) : null };
}
