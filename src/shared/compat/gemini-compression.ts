/*
 * When Gemini CLI compresses its history on its own, for the versions that write no compression
 * into their chat file (before 0.44): the importer (src/main/importers/gemini-cli/unlogged.ts)
 * names the requests such a compression may have changed, and only those. Hand-kept: read from
 * each version's code (the versions in READ below; packages/core chatCompressionService and
 * core/tokenLimits, Apache-2.0), not from runs.
 *
 * Before every model call of a turn (`sendMessageStream` → `tryCompressChat`), the client compares
 * its last prompt token count (the `promptTokenCount` of the last response, recorded as the gemini
 * message's `tokens.input`) with DEFAULT_COMPRESSION_TOKEN_THRESHOLD = 0.5 of `tokenLimit(model)`,
 * unless the user set `compressionThreshold` (a setting the file does not record). At or over it,
 * it summarises the history up to a user turn (keeping about the newest 30 % by characters) and
 * goes on with the summary, an acknowledgement and the kept tail; the compression can also fail
 * (an empty summary, a count that would grow) or find nothing to summarise. A new process (a
 * resumed chat) rebuilds the history from the file, whole.
 */

export interface GeminiCompressionRule {
  /** The prompt token count at or over which the client compresses (the lowest among the versions read). */
  readonly threshold: number;
  /** The fraction of the model's limit it compresses at. */
  readonly fraction: number;
  /** The model's token limit the threshold was taken of, per version read (the file does not say its version). */
  readonly limits: readonly { readonly version: string; readonly limit: number }[];
}

const FRACTION = 0.5;
const DEFAULT_LIMIT = 1_048_576;

/** Per version read: the models whose `tokenLimit` differs from DEFAULT_TOKEN_LIMIT (1,048,576). */
const READ: readonly { readonly version: string; readonly limits: Readonly<Record<string, number>> }[] = [
  { version: '0.22.4', limits: { 'gemini-1.5-pro': 2_097_152, 'gemini-2.0-flash-preview-image-generation': 32_000 } },
  { version: '0.38.2', limits: {} },
  { version: '0.41.2', limits: { 'gemma-4-31b-it': 256_000, 'gemma-4-26b-a4b-it': 256_000 } },
];

/** The versions whose rule was read, for the sentence that names it. */
export const GEMINI_COMPRESSION_READ = READ.map((r) => r.version);

/**
 * The automatic compression rule for `model` under the versions read: it may fire from the lowest
 * of their thresholds on, since the file does not say which version wrote it.
 */
export function geminiCompressionRule(model: string): GeminiCompressionRule {
  const limits = READ.map((r) => ({ version: r.version, limit: r.limits[model] ?? DEFAULT_LIMIT }));
  const lowest = Math.min(...limits.map((l) => l.limit));
  return { threshold: Math.ceil(FRACTION * lowest), fraction: FRACTION, limits };
}
