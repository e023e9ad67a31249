import type { SessionFacts } from './extract';

/** The key of an extraction worker's `workerData`: without it the worker module does nothing. */
export const EXTRACT_WORKER_MARK = 'palimpsestExtractWorker';

/** A session to read: its path, and the session of a database that holds several. */
export interface ExtractJob {
  readonly id: number;
  readonly path: string;
  readonly session?: string;
}

/** What an extraction worker posts for each job: the session's facts, or why it could not be read. */
export type ExtractReply =
  | { readonly id: number; readonly ok: true; readonly facts: SessionFacts }
  | { readonly id: number; readonly ok: false; readonly error: string };
