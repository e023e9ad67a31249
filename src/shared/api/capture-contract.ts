import { z } from 'zod';
import { BranchName, Count, Millis, Seq, SessionId } from './scalars';
import { Finish, Usage } from '../model/event';
import { ViewOutput } from './shapes';

/*
 * A session joined with captures of its wire traffic (src/shared/model/wire-join.ts): the joined
 * request list the timeline shows, and what the wire alone knows of a request (its exact view, the
 * model's output, the HTTP status). Spread into CONTRACT by ./contract.ts. Every other method's
 * `index` stays the log's own; here `index` counts the joined list, and `logIndex` is the log's.
 */

const WithSession = z.object({ sessionId: SessionId });

/** One request of the joined list. null: not known (the log does not record it, or the wire does not have it). */
export const TimelineRow = z.object({
  index: Count,
  /** Where the request is known from: the log only, the wire only (a retry, a failed attempt), or both. */
  source: z.enum(['log', 'wire', 'both']),
  purpose: z.enum(['agent', 'summarizer', 'side']),
  purposeWhy: z.string(),
  /** HTTP status (null: the log alone has it, or no response came). */
  status: z.number().int().nullable(),
  logIndex: Count.nullable(),
  logSeq: Seq.nullable(),
  /** The joined index of the first attempt with the same body. */
  retryOf: Count.nullable(),
  compactionId: z.string().nullable(),
  /** Wire against log, when both have it. */
  verdict: z.enum(['match', 'mismatch', 'unknown']).nullable(),
  firstDiff: z.string().nullable(),
  model: z.string().nullable(),
  finish: Finish.nullable(),
  usage: Usage.nullable(),
  error: z.object({ code: z.string().nullable(), message: z.string() }).nullable(),
  /** Epoch milliseconds the request started. */
  at: z.number().nullable(),
  durationMs: Millis.nullable(),
  /** The log seq the request comes after. */
  afterSeq: Seq.nullable(),
  /** The capture file and line it was read from. */
  capture: z.object({ path: z.string(), line: z.number().int().nonnegative().nullable(), exchange: Count.nullable() }).nullable(),
});
export type TimelineRow = z.infer<typeof TimelineRow>;

/** What the model wrote, as the wire carried it. */
export const WireOutput = z.object({
  text: z.string(),
  reasoning: z.string(),
  toolCalls: z.array(z.object({ id: z.string(), name: z.string(), input: z.string() })),
});
export type WireOutput = z.infer<typeof WireOutput>;

export const CAPTURE_CONTRACT = {
  /** The joined request list of a branch; `joined` false (and no rows) when no capture is joined to it. */
  listTimeline: {
    input: WithSession.extend({ branch: BranchName.optional() }),
    output: z.object({
      branch: z.string(),
      joined: z.boolean(),
      requests: z.array(TimelineRow),
      /** Each compaction of the log with its summarizer attempts (joined indexes, in order). */
      compactions: z.array(z.object({ id: z.string(), attempts: z.array(Count) })),
      /** Runs of summarizer attempts on the wire that no compaction of the log stands for. */
      orphanAttempts: z.array(z.array(Count)),
    }),
  },
  /** One request of the joined list: its model view (the wire's where it has it) and the model's output from the wire. */
  getWireRequest: {
    input: WithSession.extend({ index: Count }),
    output: z.object({
      request: TimelineRow,
      /** null: neither the log nor the wire holds the request's body. */
      view: ViewOutput.nullable(),
      /** null: the wire does not have the request, or nothing came back. */
      output: WireOutput.nullable(),
      http: z.object({ method: z.string(), path: z.string(), status: z.number().int().nullable(), stream: z.boolean() }).nullable(),
    }),
  },
} as const;

export type CaptureMethod = keyof typeof CAPTURE_CONTRACT;
