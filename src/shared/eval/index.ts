/*
 * The eval layer in one import, for the runner (src/main/eval) and the app. docs/eval.md describes
 * every format and formula these implement.
 */
export * from './spec';
export * from './cells';
export * from './facts';
export * from './matchers';
export * from './score';
export * from './aggregate';
export * from './results';
export * from './limits';
export * from './judge';
export { canonicalJson, hash32, hashHex } from './hash';
export { stat, percentile, type Stat } from './stats';
export { fail, ok, issuesText, type Result } from './result';
export { currentClaims, STALE_MARKERS } from './view-text';
