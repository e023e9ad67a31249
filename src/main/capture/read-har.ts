import { isUtf8 } from 'node:buffer';
import { z } from 'zod';
import { fail, fieldPath, ok, type Result } from '../../shared/eval/result';
import { openRegular } from '../files/open-regular';
import { describeIoError } from '../reader/io';
import type { Capture, Exchange, ExchangeEvent } from './exchange';
import { redactHeaders, redactPath } from './redact';
import { SkipList } from './skipped';
import { parseSse } from '../wire/sse';

/*
 * HAR 1.2 (the W3C draft "HTTP Archive (HAR) format" by Jan Odvarko), as browser devtools and
 * mitmproxy export it: log.entries[], each with startedDateTime, time (total ms), request {method,
 * url, headers [{name, value}], postData {mimeType, text}}, response {status, headers, content
 * {mimeType, text, encoding ("base64" for binary)}} and timings {blocked, dns, connect, ssl, send,
 * wait, receive} where -1 means "does not apply". A HAR is one JSON document, so it is read whole,
 * up to MAX_HAR_BYTES. `line` of an exchange is its entry number (1-based).
 */

/** A HAR is parsed whole; past this it is refused with a clear error rather than exhausting memory. */
export const MAX_HAR_BYTES = 256 * 1024 * 1024;

const NameValue = z.object({ name: z.string(), value: z.string() });

const Entry = z.object({
  startedDateTime: z.string(),
  time: z.number().optional(),
  request: z.object({
    method: z.string(),
    url: z.string(),
    headers: z.array(NameValue).optional(),
    bodySize: z.number().optional(),
    postData: z.object({ mimeType: z.string().optional(), text: z.string().optional() }).optional(),
  }),
  response: z.object({
    status: z.number().int(),
    headers: z.array(NameValue).optional(),
    content: z.object({ mimeType: z.string().optional(), text: z.string().optional(), encoding: z.string().optional() }).optional(),
    /** Chrome's reason for a request that got no response (status 0): net::ERR_… */
    _error: z.string().optional(),
  }),
  timings: z.record(z.string(), z.unknown()).optional(),
});
type Entry = z.infer<typeof Entry>;

const nonNeg = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null);

/**
 * Time to the first response byte: blocked + dns + connect + send + wait, leaving out -1 ("does not
 * apply"). ssl is not added: HAR 1.2 counts it inside connect already. null without a wait time.
 */
export function harTtfb(timings: Record<string, unknown> | undefined): number | null {
  if (timings === undefined) return null;
  const wait = nonNeg(timings.wait);
  if (wait === null) return null;
  let sum = wait;
  for (const k of ['blocked', 'dns', 'connect', 'send']) sum += nonNeg(timings[k]) ?? 0;
  return sum;
}

/** content.text as text: base64 decoded when it is valid UTF-8, else null (never garbage). */
function contentText(c: { text?: string; encoding?: string } | undefined): string | null {
  if (c?.text === undefined) return null;
  if (c.encoding === undefined || c.encoding === '') return c.text;
  if (c.encoding.toLowerCase() !== 'base64') return null;
  const bytes = Buffer.from(c.text, 'base64');
  return isUtf8(bytes) ? bytes.toString('utf8') : null;
}

function toExchange(e: Entry, file: string, n: number): Omit<Exchange, 'index'> | string {
  const startedAt = Date.parse(e.startedDateTime);
  if (Number.isNaN(startedAt)) return `entry startedDateTime ${JSON.stringify(e.startedDateTime.slice(0, 100))} is not a date`;
  let url: URL;
  try {
    url = new URL(e.request.url);
  } catch {
    return `entry request url ${JSON.stringify(e.request.url.slice(0, 200))} is not a URL`;
  }
  const reqHeaders = redactHeaders((e.request.headers ?? []).map((h) => [h.name, h.value] as const));
  const body = e.request.postData?.text ?? null;
  const r = e.response;
  // Devtools record a request that got no answer (refused, blocked, cancelled) with status 0.
  const answered = r.status > 0;
  let response: Exchange['response'] = null;
  if (answered) {
    const headers = redactHeaders((r.headers ?? []).map((h) => [h.name, h.value] as const));
    const type = (r.content?.mimeType ?? headers.find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? '').toLowerCase();
    const text = contentText(r.content);
    let events: ExchangeEvent[] | null = null;
    let complete = true;
    if (type.includes('text/event-stream') && text !== null) {
      const sse = parseSse(text);
      events = sse.events.map((ev) => ({ t: null, event: ev.event, data: ev.data }));
      complete = sse.cut === null;
    }
    response = { status: r.status, headers, events, body: events === null ? text : null, complete };
  }
  return {
    file,
    line: n,
    provider: null,
    method: e.request.method,
    path: redactPath(url.pathname + url.search),
    host: url.host || null,
    startedAt,
    ttfbMs: answered ? harTtfb(e.timings) : null,
    totalMs: nonNeg(e.time),
    request: { headers: reqHeaders, body, bytes: nonNeg(e.request.bodySize) },
    response,
    error: answered
      ? null
      : { side: null, code: r._error ?? null, message: r._error ? `no response: ${r._error}` : 'no response (status 0)' },
  };
}

async function readWhole(path: string): Promise<Result<string>> {
  let fh;
  try {
    fh = await openRegular(path);
  } catch (e) {
    return fail(describeIoError(path, e));
  }
  try {
    const { size } = await fh.stat();
    if (size > MAX_HAR_BYTES)
      return fail(`${path} is ${size} bytes, over the ${MAX_HAR_BYTES}-byte limit for a HAR file (it is read whole)`);
    return ok(await fh.readFile('utf8'));
  } catch (e) {
    return fail(describeIoError(path, e));
  } finally {
    await fh.close().catch(() => undefined);
  }
}

export async function readHar(path: string): Promise<Result<Capture>> {
  const text = await readWhole(path);
  if (!text.ok) return text;
  if (text.value.trim() === '') return fail(`${path} is empty: it holds no HAR log`);
  let doc: unknown;
  try {
    doc = JSON.parse(text.value.charCodeAt(0) === 0xfeff ? text.value.slice(1) : text.value);
  } catch (e) {
    return fail(`${path} is not a HAR file: not JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  const log = typeof doc === 'object' && doc !== null ? (doc as { log?: unknown }).log : undefined;
  const entries = typeof log === 'object' && log !== null ? (log as { entries?: unknown }).entries : undefined;
  if (!Array.isArray(entries)) return fail(`${path} is not a HAR file: it has no log.entries list`);
  const skipped = new SkipList(path);
  const read: Omit<Exchange, 'index'>[] = [];
  entries.forEach((raw, i) => {
    const e = Entry.safeParse(raw);
    if (!e.success) {
      const is = e.error.issues[0];
      skipped.add(i + 1, `entry ${i + 1}: ${is ? `${fieldPath(is.path)}: ${is.message}` : 'wrong shape'}`);
      return;
    }
    const x = toExchange(e.data, path, i + 1);
    if (typeof x === 'string') skipped.add(i + 1, x);
    else read.push(x);
  });
  // HAR 1.2 prefers entries sorted by start, but does not require it.
  read.sort((a, b) => a.startedAt - b.startedAt);
  return ok({ file: path, format: 'har', exchanges: read.map((x, index) => ({ ...x, index })), cwd: null, skipped: skipped.list() });
}
