/*
 * Which Claude Code assistant records are model calls: a rule both the importer
 * (src/main/importers/claude-code) and the fast listing (src/main/discovery/scan-claude.ts) apply,
 * kept apart from both.
 */

/** The model Claude Code names on an assistant record it wrote itself in the model's place. */
export const SYNTHETIC_MODEL = '<synthetic>';

/**
 * An assistant record is a model call of its own unless Claude Code wrote it (`<synthetic>`: a
 * refusal to send, a rate limit) or it is a preserved record re-written after a partial
 * compaction; an API error (`isApiErrorMessage`) is always one: the call that failed.
 */
export function isModelCall(synthetic: boolean, apiError: boolean, preserved: boolean): boolean {
  return apiError || (!synthetic && !preserved);
}
