import type { Finish, Usage } from './event';

/*
 * A session joined with a capture of its wire traffic. The canonical log keeps its own events and
 * seqs (every finding, link and results file names them); the join lays the capture's exchanges
 * beside the log's requests, in the order they happened, and says for each request where it is
 * known from: the log, the wire, or both.
 */

export type RequestSource = 'log' | 'wire' | 'both';
export type JoinedPurpose = 'agent' | 'summarizer' | 'side';

export interface JoinedRequest {
  /** Position in the joined list, from 0. */
  readonly index: number;
  readonly source: RequestSource;
  readonly purpose: JoinedPurpose;
  /** Why this purpose, in words (the log said so; the harness's compaction prompt; a retry of …). */
  readonly purposeWhy: string;
  /** The HTTP status (null: unknown — the log does not record it). */
  readonly status: number | null;
  /** The request's index in the replayed branch, when the log records it. */
  readonly logIndex: number | null;
  readonly logSeq: number | null;
  /** The capture and exchange it was, when the wire has it. */
  readonly capture: number | null;
  readonly exchange: number | null;
  /** The capture line (or HAR entry) it was read from. */
  readonly line: number | null;
  /** The joined index of the first attempt with the same body (this one is a retry of it). */
  readonly retryOf: number | null;
  readonly compactionId: string | null;
  /** Wire against log, when both have it: match, mismatch (the first difference in `firstDiff`) or unknown. */
  readonly verdict: 'match' | 'mismatch' | 'unknown' | null;
  readonly firstDiff: string | null;
  /** How the messages alone compared (the items of the view come from the log only when they match). */
  readonly messages: 'match' | 'mismatch' | 'unknown' | null;
  readonly model: string | null;
  readonly finish: Finish | null;
  readonly usage: Usage | null;
  readonly error: { readonly code: string | null; readonly message: string } | null;
  /** Epoch milliseconds the request started, when known. */
  readonly at: number | null;
  readonly durationMs: number | null;
  /** The log seq the request comes after: its own request seq, or for a wire-only one the last log request before it. */
  readonly afterSeq: number | null;
}

export interface JoinedCompaction {
  readonly id: string;
  /** Joined indexes of every summarizer attempt, in order. */
  readonly attempts: readonly number[];
}

export interface WireJoin {
  /** The captures joined, by index: file, format and how many of their exchanges this session took. */
  readonly captures: readonly {
    readonly file: string;
    readonly format: string;
    readonly exchanges: number;
    readonly taken: number;
    /** Lines the reader could not use (listed up to a bound, then one entry for the rest). */
    readonly skipped: number;
    /** The first of them, with their line and why, so a user can look. */
    readonly skippedLines: readonly { readonly line: number; readonly reason: string }[];
  }[];
  readonly requests: readonly JoinedRequest[];
  readonly compactions: readonly JoinedCompaction[];
  /** Summarizer attempts that no compaction of the log stands for (a compaction that left no trace). */
  readonly orphanAttempts: readonly (readonly number[])[];
}
