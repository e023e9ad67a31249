import type { Block } from '../model/content';
import type { Diagnostic, Severity } from '../model/diagnostic';
import type { EventLog } from '../model/event-log';
import type { WireJoin } from '../model/wire-join';
import type { ReplayState } from '../replay/fold';
import type { Facts } from './facts';
import type { TokenEstimator } from './measure';

/** What a rule reads: the canonical log, the replay of one branch, and what is known about the log. */
export interface RuleInput {
  /** The whole canonical log (every branch); `state.seqs` says which events the branch consists of. */
  readonly events: EventLog;
  /** The replay of the branch being diagnosed. */
  readonly state: ReplayState;
  /** The importer's format id (`palimpsest`, `dsh`, `claude-code`, …); null when unknown. */
  readonly format?: string | null;
  /**
   * Findings the reader, the importer and the replay already reported. Format-health rules read
   * them so that they never repeat what an importer said.
   */
  readonly reported?: readonly Diagnostic[];
  /** A token estimator; absent: token-based rules use reported usage only, or stay silent. */
  readonly estimate?: TokenEstimator | null;
  /**
   * Full content of events whose text is elided in memory (long texts keep a preview), by seq:
   * the blocks of a `compaction/summary` or of an `item`. See `ruleTextSeqs` / `loadRuleTexts`.
   */
  readonly fullBlocks?: ReadonlyMap<number, readonly Block[]>;
  /** The session joined with a capture of its wire traffic, when there is one (rules over attempts read it). */
  readonly wire?: WireJoin | null;
}

/** The context every rule runs with: the input, plus shared indexes computed once, lazily. */
export interface RuleContext {
  readonly events: EventLog;
  readonly state: ReplayState;
  readonly format: string | null;
  readonly reported: readonly Diagnostic[];
  readonly estimate: TokenEstimator | null;
  readonly fullBlocks: ReadonlyMap<number, readonly Block[]>;
  readonly facts: Facts;
  readonly wire: WireJoin | null;
}

/**
 * Where a rule comes from: a compaction system, by its number in docs/sources.md (000 Rind, 001 cosh,
 * 002 the Conversation Compaction article's preemptive compactor, 004 DeepSeek Harness), user
 * reports, the format itself, or what went over the wire.
 */
export type RuleOrigin = '000' | '001' | '002' | '004' | 'users' | 'format' | 'wire';

/**
 * One rule of the catalog: a stable id, the severities it may report, a title, and a pure check.
 * A rule never mutates its context and returns findings citing event seqs; `file`/`line` are
 * filled in later by whoever knows the files (src/main/session/load.ts `locateDiagnostics`).
 */
export interface Rule {
  /** Stable id, UPPER_SNAKE_CASE; documented in docs/diagnostics.md under the same name. */
  readonly id: string;
  /** The severities its findings may have, worst first. */
  readonly severities: readonly Severity[];
  /** One line: what breaks. */
  readonly title: string;
  readonly origins: readonly RuleOrigin[];
  run(ctx: RuleContext): Diagnostic[];
}
