import type { Severity } from '../../../shared/model/diagnostic';
import type { EventBody } from '../../../shared/model/event';
import type { JsonLine } from '../../reader/types';

/** What the importer's helpers write through: events and findings, tied to the line being read. */
export interface Out {
  /** Emit an event from the current line (or from `from`, for an event deferred past its line). */
  emit(event: EventBody, from?: JsonLine): number;
  /** Report a finding about the current line (or about `line`). */
  report(rule: string, severity: Severity, message: string, seqs?: number[], line?: number | null): void;
  /** The next request id of this file: `req:1`, `req:2`, … */
  nextRequestId(): string;
  /** The line being read. */
  readonly line: JsonLine;
}
