import {
  type ModelParams,
  type ModelPrices,
  type PinnedModel,
  parseModelSpec,
  parsePrices,
  ReasoningEffort,
} from '../../shared/rerun/pinned';
import { readSettings } from '../rerun/settings';
import { intFlag, stringFlag, UsageError, type ParsedArgs } from '../command/args';

/*
 * The summarization chain of `palimpsest rerun` (cosh): the `--model`s given, in order, each
 * pinned with the flags below when there is one; else the chain kept in settings (the app's, in
 * settings.json under the data folder); else — or with --session-model — the session's own route.
 */

/** Flags that pin the one `--model` given: its endpoint, window, key variable, parameters and prices. */
const PER_MODEL = ['base-url', 'model-window', 'key-env', 'temperature', 'reasoning', 'model-max-output', 'price'] as const;

export const MODEL_SPEC: Record<string, 'value' | 'boolean'> = {
  model: 'value',
  ...Object.fromEntries(PER_MODEL.map((f) => [f, 'value'])),
  'session-model': 'boolean',
};

export interface Chain {
  readonly models: PinnedModel[];
  /** Where the chain came from: the flags, the settings file, or none (the session's own route). */
  readonly from: 'flags' | 'settings' | 'session';
  readonly settingsFile: string | null;
}

function temperature(args: ParsedArgs): number | undefined {
  const v = stringFlag(args, 'temperature');
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n < 0 || n > 2)
    throw new UsageError(`--temperature must be a number from 0 to 2, got "${v}"`);
  return n;
}

/** "IN,OUT[,CACHE_READ[,CACHE_WRITE]]" in USD per million tokens. */
export function parsePrice(v: string): ModelPrices {
  const p = parsePrices(v);
  if (!p.ok) throw new UsageError(`--price: ${p.error}`);
  return p.value;
}

function params(args: ParsedArgs): ModelParams {
  const t = temperature(args);
  const r = stringFlag(args, 'reasoning');
  const reasoning = r === undefined ? undefined : ReasoningEffort.safeParse(r);
  if (reasoning && !reasoning.success)
    throw new UsageError(`--reasoning must be one of ${ReasoningEffort.options.join(', ')}, got "${r ?? ''}"`);
  const maxOutput = intFlag(args, 'model-max-output');
  if (maxOutput === 0) throw new UsageError('--model-max-output must be at least 1');
  return {
    ...(t !== undefined ? { temperature: t } : {}),
    ...(reasoning?.success ? { reasoning: reasoning.data } : {}),
    ...(maxOutput !== undefined ? { maxOutput } : {}),
  };
}

function fromFlags(args: ParsedArgs, specs: readonly string[]): PinnedModel[] {
  const given = PER_MODEL.filter((f) => args.flags.has(f));
  if (specs.length > 1 && given.length > 0) {
    throw new UsageError(
      `--${given[0] ?? ''} pins one --model; for a chain of several pinned models, save it in the app's settings (or settings.json, docs/rerun.md)`,
    );
  }
  const baseUrl = stringFlag(args, 'base-url');
  const window = intFlag(args, 'model-window');
  const keyEnv = stringFlag(args, 'key-env');
  const price = stringFlag(args, 'price');
  const options = {
    ...(baseUrl !== undefined ? { baseUrl } : {}),
    ...(window !== undefined ? { window } : {}),
    ...(keyEnv !== undefined ? { keyEnv } : {}),
    params: params(args),
    ...(price !== undefined ? { prices: parsePrice(price) } : {}),
  };
  // A mock model without an address is served by an in-process mock (rerun/summarizer.ts).
  return specs.map((spec) => {
    const p = parseModelSpec(spec, options);
    if (!p.ok) throw new UsageError(p.error);
    return p.value;
  });
}

export async function chainOf(args: ParsedArgs, env: Readonly<Record<string, string | undefined>> = process.env): Promise<Chain> {
  const specs = args.lists.get('model') ?? [];
  if (specs.length > 0) {
    if (args.flags.has('session-model')) throw new UsageError('--session-model and --model contradict each other: give one');
    return { models: fromFlags(args, specs), from: 'flags', settingsFile: null };
  }
  const stray = PER_MODEL.find((f) => args.flags.has(f));
  if (stray) throw new UsageError(`--${stray} pins a --model; give the model with --model PROVIDER:MODEL`);
  if (args.flags.has('session-model')) return { models: [], from: 'session', settingsFile: null };
  const s = await readSettings(env);
  if (s.problem !== null) throw new UsageError(`${s.problem}. Pass --model or --session-model to run without it.`);
  return s.chain.length > 0
    ? { models: [...s.chain], from: 'settings', settingsFile: s.file }
    : { models: [], from: 'session', settingsFile: null };
}
