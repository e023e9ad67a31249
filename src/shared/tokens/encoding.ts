import type { Route } from '../model/event';

/** The BPE encodings Palimpsest counts with (js-tiktoken's rank files of the same names). */
export const ENCODINGS = ['o200k_base', 'cl100k_base'] as const;
export type EncodingName = (typeof ENCODINGS)[number];

export function isEncodingName(s: string): s is EncodingName {
  return (ENCODINGS as readonly string[]).includes(s);
}

/** The encoding a figure was counted with, and how close it is to the model's own tokenizer. */
export interface EncodingChoice {
  readonly encoding: EncodingName;
  /**
   * true: the encoding is the tokenizer of the model's family (OpenAI models), so a count differs
   * from the provider's only by framing and what the log leaves out. false: an approximation (the
   * model's tokenizer is not public); the provider's reported figures are the ones to trust.
   */
  readonly exact: boolean;
  /** The model family the choice was made for ("openai", "anthropic", "deepseek", "unknown"). */
  readonly family: string;
  /** One sentence, shown next to every figure. */
  readonly note: string;
}

const O200K_MODELS = /^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o1|o3|o4|chatgpt-4o|codex|gpt-oss|computer-use)/i;
const CL100K_MODELS = /^(gpt-4(?!o|\.)|gpt-3\.5|gpt-35|text-embedding)/i;

/**
 * Which encoding approximates Claude best. Measured on the real Claude Code session of
 * the marot/spotter Claude Code sessions (docs/tokens.md, "Which encoding for Claude"): the
 * provider-reported context grows by k tokens per counted token; k is closer to 1 with this one.
 */
/** What chooseEncoding answers for a route it knows nothing about, and for most it does. */
export const DEFAULT_ENCODING: EncodingName = 'o200k_base';
export const CLAUDE_APPROXIMATION: EncodingName = 'o200k_base';

/** The encoding to count a route's requests with, chosen per model family. */
export function chooseEncoding(route: Pick<Route, 'provider' | 'model'>): EncodingChoice {
  const model = (route.model ?? '').trim().replace(/^.*\//, '');
  const provider = (route.provider ?? '').toLowerCase();
  if (O200K_MODELS.test(model)) {
    return { encoding: 'o200k_base', exact: true, family: 'openai', note: `o200k_base is the tokenizer of ${model}` };
  }
  if (CL100K_MODELS.test(model)) {
    return { encoding: 'cl100k_base', exact: true, family: 'openai', note: `cl100k_base is the tokenizer of ${model}` };
  }
  if (/claude/i.test(model) || provider.includes('anthropic') || provider.includes('claude')) {
    return {
      encoding: CLAUDE_APPROXIMATION,
      exact: false,
      family: 'anthropic',
      note: `Claude's tokenizer is not public: ${CLAUDE_APPROXIMATION} approximates it; reported usage is authoritative`,
    };
  }
  if (/deepseek/i.test(model) || provider.includes('deepseek')) {
    return {
      encoding: 'o200k_base',
      exact: false,
      family: 'deepseek',
      note: "DeepSeek's tokenizer is not bundled: o200k_base approximates it; reported usage is authoritative",
    };
  }
  if (provider.includes('openai')) {
    return { encoding: 'o200k_base', exact: false, family: 'openai', note: `assumed o200k_base for the OpenAI model "${model || '?'}"` };
  }
  return {
    encoding: DEFAULT_ENCODING,
    exact: false,
    family: 'unknown',
    note: `no tokenizer known for ${model ? `"${model}"` : 'this route'}: o200k_base approximates it`,
  };
}
