/*
 * One client version the fidelity suite ran against the mock provider, and what its log records
 * (see docs/compatibility.md for the meaning of each field). The rows are generated into
 * ./versions.ts; nothing here is written by hand but the shape.
 */

export type CompatClient = 'claude-code' | 'codex' | 'gemini-cli' | 'opencode';

export interface VerifiedVersion {
  readonly client: CompatClient;
  readonly version: string;
  /** The scenarios run on this version (saved in fixtures/fidelity/logs). */
  readonly scenarios: readonly string[];
  /** Model requests the mock received over those runs. */
  readonly wireRequests: number;
  /** The first request's system prompt in the log: verbatim, only its opening, not at all, or unknown. */
  readonly systemInLog: 'verbatim' | 'differs' | 'absent' | 'unknown';
  /** Tool descriptions of the first request found verbatim in the log. */
  readonly toolsInLog: { readonly found: number; readonly of: number };
  /** Where a call's usage is written relative to its output. */
  readonly usage: 'before-output' | 'after-output' | 'on-output-record' | 'not-logged' | 'unknown';
  /** Record kinds and fields naming a compaction. */
  readonly compactionRecords: readonly string[];
  /** Subagent / summarizer files beside the main log. */
  readonly sideFiles: 'top-level agent-*.jsonl' | '<session>/subagents/' | 'none';
  /**
   * Where the client compacted automatically, per model, on the usage the mock reported: the largest
   * conversation after which the next call went out without a compaction (`below`), and the smallest
   * after which an automatic compaction came (`at`); null where no run showed one.
   */
  readonly autoCompact: readonly { readonly model: string; readonly below: number | null; readonly at: number | null }[];
}
