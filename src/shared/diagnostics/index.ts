/**
 * Diagnostics: a catalog of rules that explain failed compactions. Each rule turns an invariant of
 * the compaction systems we follow (docs/sources.md), or a failure users report, into findings
 * with a stable id, a severity, the events they cite and a sentence a user understands. Pure: no
 * Node, no I/O (loadRuleTexts takes the re-reader as a function). Documented rule by rule in
 * docs/diagnostics.md.
 */
export type { Rule, TokenEstimator } from './types';
export { RULES, RULE_IDS, ruleById } from './registry';
export { INTERNAL_RULE_ERROR, MAX_FINDINGS_PER_RULE, buildContext, diagnose, diagnoseSteps, runRules } from './runner';
export type { RunOptions } from './runner';
export { loadRuleTexts, ruleTextSeqs } from './hydrate';
