/**
 * Diagnostics: a catalog of rules that explain failed compactions. Each rule turns an invariant of
 * the compaction systems we follow (docs/sources.md), or a failure users report, into findings
 * with a stable id, a severity, the events they cite and a sentence a user understands. Pure: no
 * Node, no I/O (loadRuleTexts takes the re-reader as a function). Documented rule by rule in
 * docs/diagnostics.md.
 */
export { RULES, ruleById } from './registry';
export { diagnose, diagnoseSteps } from './runner';
export { loadRuleTexts } from './hydrate';
