import { z } from 'zod';
import { fail, fieldPath, ok, type Result } from '../../shared/eval/result';
import type { Capture, Exchange, ExchangeEvent } from './exchange';
import { forEachJsonLine } from './json-lines';
import { redactHeaders, redactPath } from './redact';
import { SkipList } from './skipped';
import { parseSse } from '../wire/sse';

/*
 * claude-trace's log (badlogic/lemmy, apps/claude-trace, src/interceptor.ts and src/types.ts): one
 * JSON line per request/response pair, written when the response body has been read, so lines are
 * in end order. request {timestamp (seconds), method, url, headers (an object), body (parsed JSON,
 * or the text when it was not JSON)}; response {timestamp (seconds, when the headers came),
 * status_code, headers, body (parsed JSON) or body_raw (the text: a whole event stream)} or null
 * for a request left without a response when the process exited (with a `note`); logged_at (ISO).
 *
 * What it does not keep is said as null: the request bytes (the body was parsed and is re-serialised
 * here), and arrival times of events (the stream is stored as one text).
 */

const HeaderObject = z.record(z.string(), z.unknown());

const Pair = z.object({
  request: z.object({
    timestamp: z.number(),
    method: z.string(),
    url: z.string(),
    headers: HeaderObject.optional(),
    body: z.unknown().optional(),
  }),
  response: z
    .object({
      timestamp: z.number().optional(),
      status_code: z.number().int(),
      headers: HeaderObject.optional(),
      body: z.unknown().optional(),
      body_raw: z.string().optional(),
      /** Not written by the interceptor, but part of its RawPair type (the viewer's parsed events). */
      events: z.array(z.object({ event: z.string().optional(), data: z.unknown() })).optional(),
    })
    .nullable()
    .optional(),
  logged_at: z.string().optional(),
  note: z.string().optional(),
});
type Pair = z.infer<typeof Pair>;

function headerPairs(h: Record<string, unknown> | undefined): (readonly [string, string])[] {
  const out: [string, string][] = [];
  for (const [k, v] of Object.entries(h ?? {})) {
    if (typeof v === 'string') out.push([k, v]);
    else if (Array.isArray(v)) for (const x of v) out.push([k, String(x)]);
    else if (v !== undefined && v !== null) out.push([k, String(v)]);
  }
  return redactHeaders(out);
}

function header(h: readonly (readonly [string, string])[], name: string): string | null {
  return h.find(([k]) => k.toLowerCase() === name)?.[1] ?? null;
}

/** A logged body as text: the text itself, or the parsed JSON written back. */
function asText(body: unknown): string | null {
  if (body === undefined || body === null) return null;
  return typeof body === 'string' ? body : JSON.stringify(body);
}

const ms = (seconds: number): number => Math.round(seconds * 1000);

function response(p: NonNullable<Pair['response']>): NonNullable<Exchange['response']> {
  const headers = headerPairs(p.headers);
  const type = header(headers, 'content-type') ?? '';
  let events: ExchangeEvent[] | null = null;
  let body: string | null = null;
  let complete = true;
  if (p.body_raw !== undefined && type.includes('text/event-stream')) {
    const sse = parseSse(p.body_raw);
    events = sse.events.map((e) => ({ t: null, event: e.event, data: e.data }));
    complete = sse.cut === null;
  } else if (p.body_raw !== undefined) {
    body = p.body_raw;
  } else if (p.body !== undefined) {
    body = asText(p.body);
  } else if (p.events !== undefined) {
    events = p.events.map((e) => ({ t: null, event: e.event ?? null, data: typeof e.data === 'string' ? e.data : JSON.stringify(e.data) }));
  }
  return { status: p.status_code, headers, events, body, complete };
}

function toExchange(p: Pair, file: string, line: number): Omit<Exchange, 'index'> | string {
  let url: URL;
  try {
    url = new URL(p.request.url);
  } catch {
    return `request url ${JSON.stringify(p.request.url.slice(0, 200))} is not a URL`;
  }
  const startedAt = ms(p.request.timestamp);
  const loggedAt = p.logged_at === undefined ? Number.NaN : Date.parse(p.logged_at);
  const r = p.response ?? null;
  const ttfb = r?.timestamp === undefined ? null : ms(r.timestamp) - startedAt;
  const total = r !== null && !Number.isNaN(loggedAt) ? loggedAt - startedAt : null;
  const body = asText(p.request.body);
  return {
    file,
    line,
    provider: null,
    method: p.request.method,
    path: redactPath(url.pathname + url.search),
    host: url.host || null,
    startedAt,
    ttfbMs: ttfb !== null && ttfb >= 0 ? ttfb : null,
    totalMs: total !== null && total >= 0 ? total : null,
    request: { headers: headerPairs(p.request.headers), body, bytes: null },
    response: r === null ? null : response(r),
    error: r === null ? { side: null, code: null, message: p.note ?? 'claude-trace recorded no response' } : null,
  };
}

export async function readClaudeTrace(path: string): Promise<Result<Capture>> {
  const skipped = new SkipList(path);
  const read: Omit<Exchange, 'index'>[] = [];
  const end = await forEachJsonLine(path, (line, res) => {
    if (!res.ok) {
      skipped.add(line, res.reason);
      return;
    }
    const p = Pair.safeParse(res.value);
    if (!p.success) {
      const i = p.error.issues[0];
      skipped.add(line, `not a claude-trace request/response pair: ${i ? `${fieldPath(i.path)}: ${i.message}` : 'wrong shape'}`);
      return;
    }
    const x = toExchange(p.data, path, line);
    if (typeof x === 'string') skipped.add(line, x);
    else read.push(x);
  });
  if (end.ioError !== null && end.lines === 0) return fail(end.ioError);
  if (end.ioError !== null) skipped.add(end.lines + 1, `reading stopped: ${end.ioError}`);
  if (read.length === 0) {
    if (end.bytes === 0) return fail(`${path} is empty: it holds no request`);
    if (skipped.count > 0) return fail(`${path} is not a readable claude-trace log: line ${skipped.first?.line}: ${skipped.first?.reason}`);
  }
  // Lines are written when a response ends; start order is the request's timestamp (a stable sort keeps ties in file order).
  read.sort((a, b) => a.startedAt - b.startedAt);
  return ok({
    file: path,
    format: 'claude-trace',
    exchanges: read.map((x, index) => ({ ...x, index })),
    cwd: null,
    skipped: skipped.list(),
  });
}
