import { parseSse as parseStream, type TextSseEvent } from '../wire/sse';

/** One parsed server-sent event. `data` is the joined data lines (not parsed). */
export type ParsedSse = TextSseEvent;

/** The events of a complete text/event-stream body, by the one parser of the project (src/main/wire/sse.ts). */
export function parseSse(text: string): ParsedSse[] {
  return parseStream(text).events;
}
