import type { Block } from '../model/content';

/*
 * The two measures the rules and the facts they read share, in a module of their own so that
 * facts.ts need not import the rule types that hold its Facts.
 */

/**
 * A local token estimate of some blocks (a tokenizer, or a rough chars/4 rule). Provider reports
 * are authoritative: rules use reported usage first and an estimator only where the log has none,
 * and say so in their message (local counts are estimates and labelled so).
 */
export type TokenEstimator = (blocks: readonly Block[]) => number;

/** Token or character measure of something, with where the number comes from. */
export interface Measure {
  readonly value: number;
  readonly unit: 'tokens' | 'characters';
  /** reported: the provider's usage; harness: the harness's own count in the log; estimated: a local estimator; counted: characters counted here. */
  readonly source: 'reported' | 'harness' | 'estimated' | 'counted';
}
