import type { BudgetPolicy } from '../model/event';
import { grouped } from '../grouped';

/**
 * Budget policies: when a harness compacts, and what it keeps back. A policy is drawn on a view as
 * lines against the window — trigger, raw-tail reserve, output reserve, headroom — and evaluated on
 * every request of a session to show which requests would have triggered it. The presets carry the
 * numbers of the compaction systems Palimpsest follows (Rind, cosh, DeepSeek Harness, the
 * Conversation Compaction article; docs/sources.md) and of what Claude Code and Codex document or
 * log; each number names its source in `sources`.
 */

/** An amount of tokens: a share of the window plus a number of tokens, optionally clamped. */
export interface Amount {
  /** Fraction of the window. */
  readonly ratio?: number;
  /** Tokens, added to the ratio part (negative: "the window minus 33,000"). */
  readonly tokens?: number;
  /** Upper bound in tokens (Rind's min(8,192, window/10)). */
  readonly max?: number;
  readonly min?: number;
}

export function amount(a: Amount | null | undefined, window: number | null): number | null {
  if (!a) return null;
  if (a.ratio !== undefined && window === null) return null;
  let v = (a.ratio ?? 0) * (window ?? 0) + (a.tokens ?? 0);
  if (a.max !== undefined) v = Math.min(v, a.max);
  if (a.min !== undefined) v = Math.max(v, a.min);
  return Math.max(0, Math.floor(v));
}

export function describeAmount(a: Amount | null | undefined): string {
  if (!a) return '—';
  const parts: string[] = [];
  if (a.ratio !== undefined) parts.push(`${+(a.ratio * 100).toFixed(2)} % of the window`);
  if (a.tokens !== undefined)
    parts.push(a.ratio !== undefined ? `${a.tokens < 0 ? '−' : '+'} ${grouped(Math.abs(a.tokens))}` : `${grouped(a.tokens)} tokens`);
  let s = parts.join(' ');
  if (a.max !== undefined) s = `min(${grouped(a.max)}, ${s})`;
  if (a.min !== undefined) s = `max(${grouped(a.min)}, ${s})`;
  return s;
}

export type PolicyMeasure = 'context' | 'next' | 'projected';

export interface TokenPolicy {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  /** The window to draw against when the log records none. */
  readonly defaultWindow: number | null;
  /**
   * What the trigger compares. context: the request's own context. next: the context the harness
   * measures before sending the next request (this one's context + its reply + the tool results
   * that came back) — what Claude Code's preTokens, DSH's pre-step pricing and Codex's total count
   * measure. projected: next + the output reserve (the Conversation Compaction article's
   * project_next_turn).
   */
  readonly measure: PolicyMeasure;
  readonly trigger: Amount;
  /** A second, reactive watermark on the context itself (the Conversation Compaction article). */
  readonly reactive: Amount | null;
  /** The recent raw tail kept verbatim, in tokens … */
  readonly rawTail: Amount | null;
  /** … or in messages. */
  readonly rawTailMessages: number | null;
  readonly outputReserve: Amount | null;
  readonly headroom: Amount | null;
  /** Whose reserve it is: the agent's next reply, or the summary request's. */
  readonly reserveFor: 'agent' | 'summary' | null;
  /** Model-free shortening of tool results before (or instead of) summarising. */
  readonly pruner: {
    readonly over: number;
    readonly head: number;
    readonly tail: number;
    readonly unit: 'codepoints' | 'chars';
  } | null;
  readonly breaker: { readonly failures: number; readonly cooldownTurns: number } | null;
  /** Where each number comes from, by field. */
  readonly sources: Readonly<Record<string, string>>;
  /** Fields the user changed from the preset. */
  readonly edited: readonly string[];
}

const base = {
  reactive: null,
  rawTail: null,
  rawTailMessages: null,
  outputReserve: null,
  headroom: null,
  reserveFor: null,
  pruner: null,
  breaker: null,
  edited: [],
} as const;

/**
 * cosh (DiegoZaluski/cosh).
 * Raw tail — cosh's docs/context-compaction.md, "Model-view policy" 2: "Reserve a recent raw window
 * (20% of the effective context budget), preserving native tool-call/result pairs." Trigger —
 * cosh's source: the trigger is 80% of `max_tokens`. cosh's GLM report ("1M context window,
 * approximately 164k automatic trigger") shows the budget is cosh's effective context budget
 * (`max_tokens`), not the provider's window.
 */
const COSH: TokenPolicy = {
  ...base,
  id: 'cosh',
  name: 'cosh',
  description: 'checkpoint at 80 % of max_tokens, keep a 20 % raw tail',
  defaultWindow: null,
  measure: 'next',
  trigger: { ratio: 0.8 },
  rawTail: { ratio: 0.2 },
  sources: {
    trigger: 'cosh source: the trigger is 80% of max_tokens',
    rawTail: 'cosh context-compaction.md: "Reserve a recent raw window (20% of the effective context budget)"',
  },
};

/**
 * DeepSeek Harness (deepseek-ai/deepseek-harness), compaction-basic.
 * Its compaction chapter: "thresholdRatio: 0.8 triggers at 80% of its window; retainRatio: 0.16
 * reserves a token budget equal to 16% of that window, not 16% of message count." And:
 * "ctx.toolResultPruner acts when text blocks exceed 8192 Unicode code points by default, retaining
 * 4096 at the head, a fixed marker, and 1024 at the tail." Its source: triggers at
 * floor(contextWindow * thresholdRatio), retains floor(contextWindow * retainRatio).
 */
const DSH: TokenPolicy = {
  ...base,
  id: 'dsh',
  name: 'DeepSeek Harness',
  description: 'threshold 0.8, retain 0.16 of the window; prune results over 8,192 code points',
  defaultWindow: null,
  measure: 'next',
  trigger: { ratio: 0.8 },
  rawTail: { ratio: 0.16 },
  pruner: { over: 8192, head: 4096, tail: 1024, unit: 'codepoints' },
  sources: {
    trigger: 'DeepSeek Harness compaction-basic: "thresholdRatio: 0.8 triggers at 80% of its window"',
    rawTail: 'DeepSeek Harness compaction-basic: "retainRatio: 0.16 reserves a token budget equal to 16% of that window"',
    pruner:
      'DeepSeek Harness tool-result pruner: "exceed 8192 Unicode code points … retaining 4096 at the head, a fixed marker, and 1024 at the tail"',
  },
};

/**
 * Rind (Azzurroooo/rind).
 * Rind's compaction handoff docs: "The summary request reserves an output budget of min(8,192,
 * window/10) and then leaves 5% of the window as headroom." and "Over-long tool bodies can be
 * compressed to their first 2,000 characters and last 2,000 characters, with the omitted amount
 * marked in between". Trigger — Rind's source: auto-compaction triggers at context_window_tokens *
 * auto_compact_token_limit_percent / 100 (defaults 200000 and 90).
 */
const RIND: TokenPolicy = {
  ...base,
  id: 'rind',
  name: 'Rind',
  description: 'auto-compact at 90 % of the window; summary output min(8,192, window/10) + 5 % headroom',
  defaultWindow: 200_000,
  measure: 'next',
  trigger: { ratio: 0.9 },
  outputReserve: { ratio: 0.1, max: 8192 },
  headroom: { ratio: 0.05 },
  reserveFor: 'summary',
  pruner: { over: 4000, head: 2000, tail: 2000, unit: 'chars' },
  sources: {
    trigger: 'Rind source: auto_compact_token_limit_percent default 90',
    defaultWindow: 'Rind source: context_window_tokens default 200000',
    outputReserve: 'Rind compaction handoff docs: "reserves an output budget of min(8,192, window/10)"',
    headroom: 'Rind compaction handoff docs: "then leaves 5% of the window as headroom"',
    pruner: 'Rind compaction handoff docs: "compressed to their first 2,000 characters and last 2,000 characters"',
  },
};

/**
 * The preemptive, cache-aware compactor of "Conversation Compaction: Keeping Long Sessions Alive"
 * (Jatin Bansal's blog; its reference code). The article: "Run preemptive at ~70% of effective
 * context; keep reactive as a backstop at ~95%"; CompactionConfig: soft_watermark 0.70,
 * hard_watermark 0.95, tail_keep 10, max_failures 3, cooldown_turns 5, output_headroom_tokens 4096;
 * Compactor(model_context_limit=200_000); project_next_turn = estimate_tokens(messages) +
 * pending_tool_result_estimate + output_headroom_tokens.
 */
const PREEMPTIVE: TokenPolicy = {
  ...base,
  id: 'preemptive',
  name: 'preemptive compactor (Conversation Compaction, Bansal)',
  description: 'preemptive at 70 % of the projected next turn, reactive at 95 %, keep 10 messages',
  defaultWindow: 200_000,
  measure: 'projected',
  trigger: { ratio: 0.7 },
  reactive: { ratio: 0.95 },
  rawTailMessages: 10,
  outputReserve: { tokens: 4096 },
  reserveFor: 'agent',
  breaker: { failures: 3, cooldownTurns: 5 },
  sources: {
    trigger:
      'Conversation Compaction (Bansal): "Run preemptive at ~70% of effective context"; soft_watermark: float = 0.70 on project_next_turn',
    reactive: 'Conversation Compaction (Bansal): "keep reactive as a backstop at ~95%"; hard_watermark: float = 0.95',
    rawTailMessages: 'Conversation Compaction (Bansal): tail_keep: int = 10  # messages preserved verbatim after compaction',
    outputReserve: 'Conversation Compaction (Bansal): output_headroom_tokens: int = 4096  # reserved for the foreground reply',
    defaultWindow: 'Conversation Compaction (Bansal): Compactor(model_context_limit: int = 200_000)',
    breaker: 'Conversation Compaction (Bansal): max_failures: int = 3, cooldown_turns: int = 5',
  },
};

/**
 * Claude Code. Its log records neither the window nor the threshold.
 * Trigger = window − min(max output, 20,000) − 13,000 = 167,000 on a 200,000 window (83.5 %): a
 * deobfuscation of the client in anthropics/claude-code#31806 and the mnemo v1.2.16 release notes
 * ("Claude Code compacts at window − min(max_output, 20000) − 13000"), both third-party. The real log
 * fixtures/claude-code/4d5611e5-….jsonl (marot/spotter, 2.1.39) agrees: its compact_boundary says
 * preTokens 170,251 — over 167,000, and 85 % of the window, where the Conversation Compaction
 * article's "Claude Code's auto-compact at ~95%" (an older figure) would not have fired yet.
 * Window: 200,000, Anthropic's documented context window of the Claude models (the 1M window is
 * opt-in).
 */
const CLAUDE_CODE: TokenPolicy = {
  ...base,
  id: 'claude-code',
  name: 'Claude Code',
  description: 'auto-compact at window − 20,000 output reserve − 13,000 buffer',
  defaultWindow: 200_000,
  measure: 'next',
  trigger: { ratio: 1, tokens: -33_000 },
  outputReserve: { tokens: 20_000 },
  headroom: { tokens: 13_000 },
  reserveFor: 'agent',
  sources: {
    trigger:
      'anthropics/claude-code#31806 and jojoprison/mnemo v1.2.16 (third-party): window − min(max_output, 20000) − 13000; the marot-spotter log compacts at preTokens 170,251 > 167,000',
    outputReserve: 'same sources: min(max_output, 20,000)',
    headroom: 'same sources: 13,000-token buffer',
    defaultWindow: 'Anthropic model documentation: 200,000-token context window (1M opt-in)',
    note: 'Conversation Compaction (Bansal) says "~95%": older versions; the real 2.1.39 log does not fit it',
  },
};

/**
 * OpenAI Codex CLI. Codex logs `model_context_window` as the *effective* window, 95 % of the model's
 * (the localpush fixture logs 258,400 = 272,000 × 0.95; effective_context_window_percent = 95), and
 * auto-compacts at 90 % of the model's window (`context_window * 9 / 10` in codex-rs
 * protocol/src/openai_models.rs, as cited by third-party readings of the source) — 0.9 / 0.95 of the
 * logged window. The retained user messages of a local compaction are capped at
 * COMPACT_USER_MESSAGE_MAX_TOKENS = 20,000 (codex-rs core/src/compact.rs).
 * The fixture's own compaction (cli 0.104.0-alpha.1) fired at 212,134 tokens, 82 % of the logged
 * window: that build's model catalog set a lower limit; edit the trigger to match a log.
 */
const CODEX: TokenPolicy = {
  ...base,
  id: 'codex',
  name: 'Codex CLI',
  description: 'auto-compact at 90 % of the model window (the log records 95 % of it)',
  defaultWindow: 258_400,
  measure: 'next',
  trigger: { ratio: 0.9 / 0.95 },
  rawTail: { tokens: 20_000 },
  headroom: { ratio: 0.05 / 0.95 },
  reserveFor: 'agent',
  sources: {
    trigger:
      'codex-rs protocol/src/openai_models.rs: context_window * 9 / 10 (third-party citations); logged window = 95 % of the model window',
    rawTail: 'codex-rs core/src/compact.rs: COMPACT_USER_MESSAGE_MAX_TOKENS = 20_000 (retained user messages)',
    headroom: 'effective_context_window_percent = 95: the 5 % of the model window Codex keeps back',
    defaultWindow: 'localpush fixture: model_context_window 258,400 (gpt-5.3-codex)',
  },
};

/**
 * Gemini CLI (google-gemini/gemini-cli, packages/core/src/context/chatCompressionService.ts @
 * v0.49). Before a turn it compresses when the last prompt's token count reaches
 * DEFAULT_COMPRESSION_TOKEN_THRESHOLD = 0.5 of `tokenLimit(model)` (core/tokenLimits.ts:
 * 1,048,576 for every Gemini model and the default, 256,000 for Gemma 4), unless the user set
 * `compressionThreshold`. It keeps the newest COMPRESSION_PRESERVE_THRESHOLD = 0.3 of the history,
 * by characters and split at a user turn: at the trigger that is about 0.3 × 0.5 = 15 % of the
 * window, an approximation. Function responses beyond COMPRESSION_FUNCTION_RESPONSE_TOKEN_BUDGET
 * = 50,000 tokens (newest first) are cut to a head and tail before summarising. After a
 * compression that would inflate the count it no longer summarises in that chat, only truncates.
 * The same values since v0.20 (v0.30 for the function-response budget).
 */
const GEMINI_CLI: TokenPolicy = {
  ...base,
  id: 'gemini-cli',
  name: 'Gemini CLI',
  description: 'compress at 50 % of the model window, keep the newest 30 % of the history',
  defaultWindow: 1_048_576,
  measure: 'context',
  trigger: { ratio: 0.5 },
  rawTail: { ratio: 0.15 },
  reserveFor: 'agent',
  sources: {
    trigger:
      'gemini-cli chatCompressionService.ts: DEFAULT_COMPRESSION_TOKEN_THRESHOLD = 0.5 of tokenLimit(model), against the last prompt token count',
    rawTail:
      'gemini-cli chatCompressionService.ts: COMPRESSION_PRESERVE_THRESHOLD = 0.3 of the history by characters (findCompressSplitPoint); 0.3 × the 0.5 trigger ≈ 15 % of the window',
    defaultWindow: 'gemini-cli core/tokenLimits.ts: DEFAULT_TOKEN_LIMIT = 1,048,576 (every Gemini model; Gemma 4: 256,000)',
    pruner:
      'gemini-cli chatCompressionService.ts: COMPRESSION_FUNCTION_RESPONSE_TOKEN_BUDGET = 50,000 (function responses beyond it cut to 20 % head + 80 % tail)',
  },
};

/**
 * OpenCode (anomalyco/opencode). After each step it compares the step's tokens (`total`, else
 * input + output + cache read + cache write: this request's context and its reply) with the usable
 * window, the model's input limit less `min(20,000, the model's max output)` (`COMPACTION_BUFFER`,
 * packages/opencode/src/session/overflow.ts), and compacts when they reach it. The kept tail is a
 * token budget of whole user turns, `min(15,000, max(2,000, floor(usable × 0.25)))` unless
 * `compaction.preserve_recent_tokens` sets it (`preserveRecentBudget` in session/compaction.ts;
 * some versions cap it at 8,000). Separately, pruning clears old tool outputs: walking back past
 * the last two user turns, it protects the newest 40,000 tokens of tool output (`PRUNE_PROTECT`)
 * and clears the older ones only when they come to more than 20,000 (`PRUNE_MINIMUM`); the model
 * then sees "[Old tool result content cleared]".
 */
const OPENCODE: TokenPolicy = {
  ...base,
  id: 'opencode',
  name: 'OpenCode',
  description:
    'compact at the window less min(20,000, max output); keep 25 % of that in whole turns (2,000–15,000); prune tool outputs past the newest 40,000 tokens',
  defaultWindow: null,
  measure: 'next',
  trigger: { ratio: 1, tokens: -20_000 },
  rawTail: { ratio: 0.25, tokens: -5_000, min: 2_000, max: 15_000 },
  outputReserve: { tokens: 20_000 },
  reserveFor: 'agent',
  sources: {
    trigger:
      'anomalyco/opencode packages/opencode/src/session/overflow.ts: usable = input limit − min(COMPACTION_BUFFER 20,000, max output); overflow when tokens ≥ usable',
    rawTail:
      'anomalyco/opencode packages/opencode/src/session/compaction.ts preserveRecentBudget: min(15,000, max(2,000, floor(usable × 0.25)))',
    outputReserve: 'same overflow.ts: COMPACTION_BUFFER = 20,000 (or the model’s max output when smaller)',
    note: 'pruning (compaction.ts prune): PRUNE_PROTECT = 40,000 tokens of recent tool output kept, PRUNE_MINIMUM = 20,000 before anything is cleared',
  },
};

export const POLICY_PRESETS: Readonly<Record<string, TokenPolicy>> = {
  cosh: COSH,
  dsh: DSH,
  rind: RIND,
  preemptive: PREEMPTIVE,
  'claude-code': CLAUDE_CODE,
  codex: CODEX,
  'gemini-cli': GEMINI_CLI,
  opencode: OPENCODE,
};

export const POLICY_NAMES = Object.keys(POLICY_PRESETS);

/** The preset a log's harness would run, by session format. */
export function defaultPolicyFor(format: string): TokenPolicy {
  switch (format) {
    case 'claude-code':
      return CLAUDE_CODE;
    case 'codex':
      return CODEX;
    case 'dsh':
      return DSH;
    case 'rind':
      return RIND;
    case 'cosh':
      return COSH;
    case 'gemini-cli':
      return GEMINI_CLI;
    case 'opencode':
      return OPENCODE;
    default:
      return COSH;
  }
}

/**
 * A policy a compaction recorded in the log (compaction/start), as a token policy. What the record
 * leaves out comes from `fallback` (the preset of the log's harness); a record without a trigger
 * is no policy of its own and gives null.
 */
export function policyFromLog(b: BudgetPolicy, fallback: TokenPolicy, id = 'logged'): TokenPolicy | null {
  if (b.triggerRatio === undefined && b.triggerTokens === undefined) return null;
  const sources: Record<string, string> = { ...fallback.sources };
  const logged = (field: string): void => {
    sources[field] = 'compaction/start.policy in this log';
  };
  const trigger: Amount = b.triggerTokens !== undefined ? { tokens: b.triggerTokens } : { ratio: b.triggerRatio as number };
  logged('trigger');
  let rawTail = fallback.rawTail;
  if (b.rawTailTokens !== undefined) rawTail = { tokens: b.rawTailTokens };
  else if (b.rawTailRatio !== undefined) rawTail = { ratio: b.rawTailRatio };
  if (b.rawTailTokens !== undefined || b.rawTailRatio !== undefined) logged('rawTail');
  if (b.window !== undefined) logged('defaultWindow');
  if (b.reactiveRatio !== undefined) logged('reactive');
  if (b.rawTailMessages !== undefined) logged('rawTailMessages');
  if (b.outputReserve !== undefined) logged('outputReserve');
  if (b.headroom !== undefined) logged('headroom');
  if (b.breaker !== undefined) logged('breaker');
  return {
    ...fallback,
    id,
    name: b.name ? `logged: ${b.name}` : 'logged policy',
    description: 'the policy a compaction of this log recorded',
    edited: [],
    defaultWindow: b.window ?? fallback.defaultWindow,
    trigger,
    reactive: b.reactiveRatio !== undefined ? { ratio: b.reactiveRatio } : fallback.reactive,
    rawTail,
    rawTailMessages: b.rawTailMessages ?? fallback.rawTailMessages,
    outputReserve: b.outputReserve !== undefined ? { tokens: b.outputReserve } : fallback.outputReserve,
    headroom: b.headroom !== undefined ? { tokens: b.headroom } : fallback.headroom,
    breaker: b.breaker ?? fallback.breaker,
    sources,
  };
}

export class PolicyError extends Error {}

/** "0.8", "80%", "150000", "150k", "-33000" → an amount: ≤ 1 (or a %) is a share of the window, more is tokens. */
export function parseAmount(text: string): Amount | null {
  const t = text.trim().toLowerCase();
  if (t === 'none' || t === 'off') return null;
  const pct = /^(\d+(?:\.\d+)?)%$/.exec(t);
  if (pct) return { ratio: Number(pct[1]) / 100 };
  const m = /^(-?\d+(?:\.\d+)?)(k)?$/.exec(t);
  if (!m) throw new PolicyError(`"${text}" is not an amount (a share like 0.8 or 80%, or tokens like 150000 or 150k, or none)`);
  const v = Number(m[1]) * (m[2] ? 1000 : 1);
  if (!m[2] && Math.abs(v) <= 1) return { ratio: v };
  return { tokens: Math.round(v) };
}

const EDITABLE = ['window', 'trigger', 'reactive', 'tail', 'tailMessages', 'output', 'headroom', 'measure'] as const;

/**
 * A policy from `name[,field=value…]`: a preset, optionally edited, e.g. `dsh,trigger=0.7`,
 * `claude-code,window=1000000`, `preemptive,tail=none,tailMessages=20`. `logged` is the policy the
 * log's own compactions recorded (pass it as `logged`).
 */
export function parsePolicySpec(spec: string, logged: TokenPolicy | null = null): TokenPolicy {
  const [name, ...edits] = spec
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (!name) throw new PolicyError('empty policy');
  let p: TokenPolicy | undefined = name === 'logged' ? (logged ?? undefined) : POLICY_PRESETS[name];
  if (!p) {
    const known = [...POLICY_NAMES, ...(logged ? ['logged'] : [])].join(', ');
    throw new PolicyError(`no policy "${name}"${name === 'logged' ? ' (no compaction in this log records one)' : ''}; known: ${known}`);
  }
  const edited = [...p.edited];
  for (const e of edits) {
    const eq = e.indexOf('=');
    if (eq < 0) throw new PolicyError(`"${e}" is not field=value (fields: ${EDITABLE.join(', ')})`);
    const field = e.slice(0, eq).trim();
    const value = e.slice(eq + 1).trim();
    switch (field) {
      case 'window': {
        const a = parseAmount(value);
        if (!a || a.tokens === undefined || a.tokens <= 0) throw new PolicyError('window must be a number of tokens');
        p = { ...p, defaultWindow: a.tokens };
        break;
      }
      case 'trigger': {
        const a = parseAmount(value);
        if (!a) throw new PolicyError('a policy needs a trigger');
        p = { ...p, trigger: a };
        break;
      }
      case 'reactive':
        p = { ...p, reactive: parseAmount(value) };
        break;
      case 'tail':
        p = { ...p, rawTail: parseAmount(value) };
        break;
      case 'tailMessages': {
        const n = value === 'none' ? null : Number(value);
        if (n !== null && (!Number.isInteger(n) || n < 0)) throw new PolicyError('tailMessages must be a whole number or none');
        p = { ...p, rawTailMessages: n };
        break;
      }
      case 'output':
        p = { ...p, outputReserve: parseAmount(value) };
        break;
      case 'headroom':
        p = { ...p, headroom: parseAmount(value) };
        break;
      case 'measure':
        if (value !== 'context' && value !== 'next' && value !== 'projected')
          throw new PolicyError('measure must be context, next or projected');
        p = { ...p, measure: value };
        break;
      default:
        throw new PolicyError(`unknown policy field "${field}" (fields: ${EDITABLE.join(', ')})`);
    }
    if (!edited.includes(field)) edited.push(field);
  }
  return edited.length === p.edited.length ? p : { ...p, edited, id: `${p.id}*` };
}

/** The lines of a policy against one window, in tokens. */
export interface PolicyLines {
  readonly window: number | null;
  /** log: the request's route recorded it; policy: the policy's default (the log does not say). */
  readonly windowSource: 'log' | 'policy' | null;
  readonly trigger: number | null;
  readonly reactive: number | null;
  readonly rawTail: number | null;
  readonly rawTailMessages: number | null;
  readonly outputReserve: number | null;
  readonly headroom: number | null;
}

export function policyLines(p: TokenPolicy, logWindow: number | null | undefined): PolicyLines {
  const window = logWindow ?? p.defaultWindow;
  return {
    window,
    windowSource: logWindow ? 'log' : p.defaultWindow ? 'policy' : null,
    trigger: amount(p.trigger, window),
    reactive: amount(p.reactive, window),
    rawTail: amount(p.rawTail, window),
    rawTailMessages: p.rawTailMessages,
    outputReserve: amount(p.outputReserve, window),
    headroom: amount(p.headroom, window),
  };
}

/** What the policy sees at one request. */
export interface PolicyInput {
  readonly index: number;
  readonly window: number | null;
  /** The context size: the provider's report when there is one. */
  readonly size: number;
  readonly sizeSource: SizeSource;
  /** The context before the next request: size + the reply + the tool results that came back (known in hindsight). */
  readonly next: number;
  /** The compaction the log started right after this request, if any. */
  readonly compactedAfter: string | null;
}

export type SizeSource = 'reported' | 'estimated' | 'estimated+envelope';

export type PolicyState = 'below' | 'trigger' | 'reactive' | 'over-window' | 'no-window';

export interface PolicyVerdict {
  readonly index: number;
  readonly lines: PolicyLines;
  readonly size: number;
  readonly sizeSource: SizeSource;
  /** What the trigger compared (policy.measure): the size, the next context, or the projected next turn. */
  readonly measured: number;
  /** size / window. */
  readonly fill: number | null;
  readonly state: PolicyState;
  readonly wouldTrigger: boolean;
  /** The first request of a run over the trigger (the one after which the harness would have compacted). */
  readonly firstOfRun: boolean;
  readonly compactedAfter: string | null;
}

export interface PolicyEvaluation {
  readonly policy: TokenPolicy;
  readonly verdicts: readonly PolicyVerdict[];
  /** Requests after which the policy would have compacted (first of each run over the trigger). */
  readonly triggers: readonly number[];
  /** Requests after which the log did compact. */
  readonly compactions: readonly number[];
  /** Compactions of the log the policy also predicts (a trigger at that request or the one before). */
  readonly matched: readonly number[];
  /** Compactions of the log the policy does not predict. */
  readonly unpredicted: readonly number[];
  /** Policy triggers with no compaction of the log nearby. */
  readonly extra: readonly number[];
}

/** Evaluates a policy on the agent requests of a session, in order. */
export function evaluatePolicy(policy: TokenPolicy, inputs: readonly PolicyInput[]): PolicyEvaluation {
  const verdicts: PolicyVerdict[] = [];
  let previousOver = false;
  for (const x of inputs) {
    const lines = policyLines(policy, x.window);
    const measured = policy.measure === 'context' ? x.size : policy.measure === 'next' ? x.next : x.next + (lines.outputReserve ?? 0);
    let state: PolicyState;
    if (lines.window === null || lines.trigger === null) state = 'no-window';
    else if (x.size >= lines.window) state = 'over-window';
    else if (lines.reactive !== null && Math.max(x.size, x.next) >= lines.reactive) state = 'reactive';
    else if (measured >= lines.trigger) state = 'trigger';
    else state = 'below';
    const wouldTrigger = state === 'trigger' || state === 'reactive' || state === 'over-window';
    verdicts.push({
      index: x.index,
      lines,
      size: x.size,
      sizeSource: x.sizeSource,
      measured,
      fill: lines.window ? x.size / lines.window : null,
      state,
      wouldTrigger,
      firstOfRun: wouldTrigger && !previousOver,
      compactedAfter: x.compactedAfter,
    });
    // A compaction of the log ends the run: the next request over the line is a new trigger.
    previousOver = wouldTrigger && x.compactedAfter === null;
  }
  const triggers = verdicts.filter((v) => v.firstOfRun).map((v) => v.index);
  const compactions = verdicts.filter((v) => v.compactedAfter !== null).map((v) => v.index);
  const position = new Map<number, number>();
  verdicts.forEach((v, i) => position.set(v.index, i));
  const triggerSet = new Set(triggers);
  const compactionSet = new Set(compactions);
  const at = (i: number, delta: number): PolicyVerdict | undefined => verdicts[(position.get(i) ?? -2) + delta];
  // A compaction is predicted when the request it followed was over the line, or the request before it first crossed it.
  const matched = compactions.filter((i) => at(i, 0)?.wouldTrigger === true || triggerSet.has(at(i, -1)?.index ?? -1));
  const unpredicted = compactions.filter((i) => !matched.includes(i));
  const extra = triggers.filter((i) => !compactionSet.has(i) && !compactionSet.has(at(i, 1)?.index ?? -1));
  return { policy, verdicts, triggers, compactions, matched, unpredicted, extra };
}
