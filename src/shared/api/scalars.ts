import { z } from 'zod';

/*
 * The small schemas every part of the API contract uses. A leaf module: the contract's parts are
 * evaluated while ./contract.ts is, so they take these from here rather than from ./contract.
 */

export const Seq = z.number().int().nonnegative();
export const Count = z.number().int().nonnegative();
export const Tokens = z.number().int().nonnegative();
export const Millis = z.number().nonnegative();
/** A fraction: recall, a rate. */
export const Rate = z.number().min(0).max(1);
export const SessionId = z.string().min(1).max(100);
export const BranchName = z.string().min(1).max(1000);
export const JobId = z.string().min(1).max(100);
export const Path = z.string().min(1).max(4096);

/** A host job (a re-run or an eval): running until it is done, failed or cancelled. */
export const JobState = z.enum(['running', 'done', 'failed', 'cancelled']);
export type JobState = z.infer<typeof JobState>;
