import type { CapturedRequest } from '../../../src/main/mock';
import { parseSse, type TextSseEvent } from '../../../src/main/wire/sse';

/*
 * Reading what the mock provider recorded and answered, for assertions only: production code reads
 * captured requests through bodyText/bodyJson and streams through src/main/wire/sse.
 */

/** A captured request's header value (first occurrence, case-insensitive), or null. */
export function header(r: Pick<CapturedRequest, 'headers'>, name: string): string | null {
  const n = name.toLowerCase();
  return r.headers.find(([k]) => k.toLowerCase() === n)?.[1] ?? null;
}

/** The events of a complete text/event-stream body (`data` is the joined data lines, not parsed). */
export function sseEvents(text: string): TextSseEvent[] {
  return parseSse(text).events;
}
