/** One parsed server-sent event. `data` is the joined data lines (not parsed). */
export interface ParsedSse {
  readonly event: string | null;
  readonly data: string;
}

/** Parses a complete text/event-stream body (WHATWG rules for event and data fields; comments skipped). */
export function parseSse(text: string): ParsedSse[] {
  const out: ParsedSse[] = [];
  let event: string | null = null;
  let data: string[] = [];
  let has = false;
  for (const raw of text.split(/\r\n|\r|\n/)) {
    if (raw === '') {
      if (has) out.push({ event, data: data.join('\n') });
      event = null;
      data = [];
      has = false;
      continue;
    }
    if (raw.startsWith(':')) continue;
    const i = raw.indexOf(':');
    const field = i < 0 ? raw : raw.slice(0, i);
    let value = i < 0 ? '' : raw.slice(i + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') {
      event = value;
      has = true;
    } else if (field === 'data') {
      data.push(value);
      has = true;
    }
  }
  if (has) out.push({ event, data: data.join('\n') });
  return out;
}
