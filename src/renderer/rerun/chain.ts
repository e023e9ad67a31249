import type { ModelSpec, PinnedModelRow } from '../../shared/api/contract';
import { parsePrices, pricesText, ReasoningEffort } from '../../shared/rerun/pinned';
import type { Result } from '../../shared/result';
import { grouped } from '../../shared/grouped';

/**
 * One model of the summarization chain as the panel edits it (strings, as typed), and its
 * translation to and from the API's ModelSpec — a pinned model: provider, base URL, model, window,
 * parameters (temperature, output ceiling, reasoning), prices, the key's variable. Pure.
 */

export interface ChainEntry {
  /** Stable key for the list while entries move. */
  readonly key: number;
  readonly provider: string;
  readonly model: string;
  readonly baseUrl: string;
  readonly window: string;
  /** 0–2; empty: the provider's default. */
  readonly temperature?: string;
  /** low, medium or high; empty: the provider's default. */
  readonly reasoning?: string;
  /** The output ceiling this model is sent when a request leaves it to the connector. */
  readonly maxOutput?: string;
  /** "INPUT,OUTPUT[,CACHE_READ[,CACHE_WRITE]]", USD per million tokens. */
  readonly prices?: string;
  /** The *_API_KEY variable holding its key (never the key). */
  readonly keyEnv?: string;
}

/** A field as typed, checked: its value, or what is wrong with it in a sentence. */

const INT = /^\d+$/;
const KEY_ENV = /^[A-Z][A-Z0-9_]*_API_KEY$/;

/** A whole number from 1 to `max` as typed (thousands separators allowed); empty: undefined. */
export function positiveInt(text: string, what: string, max: number): Result<number | undefined> {
  const t = text.trim().replace(/[,_\s]/g, '');
  if (t === '') return { ok: true, value: undefined };
  if (!INT.test(t) || Number(t) < 1 || Number(t) > max)
    return { ok: false, error: `${what} must be a whole number from 1 to ${grouped(max)}.` };
  return { ok: true, value: Number(t) };
}

export const isMock = (e: Pick<ChainEntry, 'provider' | 'baseUrl'>): boolean => e.provider === 'mock' && e.baseUrl.trim() === '';

/** "provider:model", or the object form when the entry pins anything more. */
export function modelSpec(e: ChainEntry): Result<ModelSpec> {
  const model = e.model.trim();
  const name = `${e.provider}:${model}`;
  if (model === '') return { ok: false, error: `The ${e.provider} entry names no model.` };
  const window = positiveInt(e.window, `The window of ${name}`, 100_000_000);
  if (!window.ok) return window;
  const baseUrl = e.baseUrl.trim();
  if (baseUrl !== '' && !/^https?:\/\/\S+$/.test(baseUrl))
    return { ok: false, error: `The base URL of ${name} must start with http:// or https://.` };
  const t = (e.temperature ?? '').trim();
  const temperature = t === '' ? undefined : Number(t);
  if (temperature !== undefined && !(Number.isFinite(temperature) && temperature >= 0 && temperature <= 2))
    return { ok: false, error: `The temperature of ${name} must be a number from 0 to 2.` };
  const r = (e.reasoning ?? '').trim();
  const reasoning = ReasoningEffort.safeParse(r);
  if (r !== '' && !reasoning.success) return { ok: false, error: `The reasoning of ${name} must be low, medium or high.` };
  const maxOutput = positiveInt(e.maxOutput ?? '', `The output ceiling of ${name}`, 10_000_000);
  if (!maxOutput.ok) return maxOutput;
  const p = (e.prices ?? '').trim();
  const prices = p === '' ? null : parsePrices(p);
  if (prices && !prices.ok) return { ok: false, error: `The prices of ${name}: ${prices.error}.` };
  const keyEnv = (e.keyEnv ?? '').trim();
  if (keyEnv !== '' && !KEY_ENV.test(keyEnv))
    return { ok: false, error: `The key variable of ${name} must be a *_API_KEY name, like OPENROUTER_API_KEY.` };
  const params = {
    ...(temperature !== undefined ? { temperature } : {}),
    ...(maxOutput.value !== undefined ? { maxOutput: maxOutput.value } : {}),
    ...(r !== '' && reasoning.success ? { reasoning: reasoning.data } : {}),
  };
  const spec: PinnedModelRow = {
    provider: e.provider as PinnedModelRow['provider'],
    model,
    ...(baseUrl !== '' ? { baseUrl } : {}),
    ...(window.value !== undefined ? { window: window.value } : {}),
    ...(keyEnv !== '' ? { keyEnv } : {}),
    ...(Object.keys(params).length > 0 ? { params } : {}),
    ...(prices?.ok ? { prices: prices.value } : {}),
  };
  return { ok: true, value: Object.keys(spec).length === 2 ? name : spec };
}

/** The object form of an entry (what settings keep), or what is wrong with it. */
export function modelRow(e: ChainEntry): Result<PinnedModelRow> {
  const m = modelSpec(e);
  if (!m.ok) return m;
  return {
    ok: true,
    value: typeof m.value === 'string' ? { provider: e.provider as PinnedModelRow['provider'], model: e.model.trim() } : m.value,
  };
}

/** An entry from a model kept in settings. */
export function entryOf(row: PinnedModelRow, key: number): ChainEntry {
  const p = row.params ?? {};
  return {
    key,
    provider: row.provider,
    model: row.model,
    baseUrl: row.baseUrl ?? '',
    window: row.window !== undefined ? String(row.window) : '',
    temperature: p.temperature !== undefined ? String(p.temperature) : '',
    reasoning: p.reasoning ?? '',
    maxOutput: p.maxOutput !== undefined && p.maxOutput !== null ? String(p.maxOutput) : '',
    prices: row.prices ? pricesText(row.prices) : '',
    keyEnv: row.keyEnv ?? '',
  };
}

export function entryLabel(e: ChainEntry): string {
  return `${e.provider}:${e.model.trim() || '?'}${e.baseUrl.trim() ? ` @ ${e.baseUrl.trim()}` : ''}`;
}

/** What the entry pins beyond its name, in short phrases for the list. */
export function entryDetails(e: ChainEntry): string[] {
  const out: string[] = [];
  const t = (s: string | undefined): string => (s ?? '').trim();
  if (t(e.window)) out.push(`window ${t(e.window)}`);
  if (t(e.temperature)) out.push(`temperature ${t(e.temperature)}`);
  if (t(e.reasoning)) out.push(`reasoning ${t(e.reasoning)}`);
  if (t(e.maxOutput)) out.push(`max output ${t(e.maxOutput)}`);
  const prices = t(e.prices) ? parsePrices(t(e.prices)) : null;
  if (prices?.ok) {
    const v = prices.value;
    out.push(
      `$${v.input} in / $${v.output} out per M${v.cacheRead !== undefined ? ` / $${v.cacheRead} cache read` : ''}${v.cacheWrite !== undefined ? ` / $${v.cacheWrite} cache write` : ''}`,
    );
  }
  if (t(e.keyEnv)) out.push(`key from ${t(e.keyEnv)}`);
  return out;
}
