import { isUtf8 } from 'node:buffer';
import type { z } from 'zod';
import { fail, fieldPath, ok, type Result } from '../../shared/eval/result';
import type { Capture, Exchange } from './exchange';
import { CaptureHeader, CapturedExchange, type CapturedBody } from './format';
import { forEachJsonLine } from './json-lines';
import { redactHeaders, redactPath } from './redact';
import { SkipList } from './skipped';

/*
 * Reads a capture written by `palimpsest record` (./format.ts). Lines are streamed; a line that is
 * not JSON or does not fit the schema is skipped and listed, never fatal. The header matters only
 * for the working directory: a bad one is an error only when no exchange could be read either.
 * Exchange lines are written when each exchange ends; they are put back in start order by `seq`.
 */

function issue(error: z.ZodError): string {
  const i = error.issues[0];
  return i ? `${fieldPath(i.path)}: ${i.message}` : 'does not fit the schema';
}

/** A body as text: decoded when it was compressed, else the UTF-8 data, else base64 bytes that are valid UTF-8; else null. */
export function bodyText(b: CapturedBody): string | null {
  if (b.decoded !== undefined) return b.decoded;
  if (b.encoding === 'utf8') return b.data;
  const bytes = Buffer.from(b.data, 'base64');
  return isUtf8(bytes) ? bytes.toString('utf8') : null;
}

function hostOf(upstream: string): string | null {
  try {
    return new URL(upstream).host || null;
  } catch {
    return null;
  }
}

function toExchange(x: CapturedExchange, file: string, line: number, startedAt: number): Omit<Exchange, 'index'> {
  const r = x.response;
  return {
    file,
    line,
    provider: x.provider,
    method: x.method,
    path: redactPath(x.path),
    host: hostOf(x.upstream),
    startedAt,
    ttfbMs: x.timings.ttfbMs,
    totalMs: x.timings.totalMs,
    request: { headers: redactHeaders(x.request.headers), body: bodyText(x.request.body), bytes: x.request.body.bytes },
    response:
      r === null
        ? null
        : {
            status: r.status,
            headers: redactHeaders(r.headers),
            events: r.events ? r.events.map((e) => ({ t: e.t, event: e.event, data: e.data })) : null,
            body: r.body ? bodyText(r.body) : null,
            complete: r.complete,
          },
    error: x.error,
  };
}

export async function readPalimpsestCapture(path: string): Promise<Result<Capture>> {
  const skipped = new SkipList(path);
  const read: { seq: number; x: Omit<Exchange, 'index'> }[] = [];
  let header: CaptureHeader | null = null;
  let headerProblem: string | null = null;
  const end = await forEachJsonLine(path, (line, res) => {
    if (!res.ok) {
      skipped.add(line, res.reason);
      return;
    }
    const v = res.value;
    const type = typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>).type : undefined;
    if (type === 'capture') {
      if (header !== null) {
        skipped.add(line, 'a second capture header');
        return;
      }
      const h = CaptureHeader.safeParse(v);
      if (h.success) header = h.data;
      else {
        headerProblem = `line ${line}: the capture header is not one this version reads (${issue(h.error)})`;
        skipped.add(line, headerProblem);
      }
      return;
    }
    if (type !== 'exchange') {
      skipped.add(line, type === undefined ? 'not a capture line (no "type")' : `unknown line type ${JSON.stringify(type)}`);
      return;
    }
    const x = CapturedExchange.safeParse(v);
    if (!x.success) {
      skipped.add(line, `exchange ${issue(x.error)}`);
      return;
    }
    const startedAt = Date.parse(x.data.startedAt);
    if (Number.isNaN(startedAt)) {
      skipped.add(line, `exchange startedAt: ${JSON.stringify(x.data.startedAt)} is not a date`);
      return;
    }
    read.push({ seq: x.data.seq, x: toExchange(x.data, path, line, startedAt) });
  });
  if (end.ioError !== null && end.lines === 0) return fail(end.ioError);
  if (end.ioError !== null) skipped.add(end.lines + 1, `reading stopped: ${end.ioError}`);
  if (read.length === 0 && header === null) {
    if (end.bytes === 0) return fail(`${path} is empty: it holds no capture header and no exchange`);
    const why = headerProblem ?? skipped.first?.reason ?? 'no capture header';
    return fail(`${path} is not a readable Palimpsest capture: ${why}`);
  }
  read.sort((a, b) => a.seq - b.seq);
  const h = header as CaptureHeader | null;
  return ok({
    file: path,
    format: 'palimpsest',
    exchanges: read.map((r, index) => ({ ...r.x, index })),
    cwd: h?.cwd ?? null,
    skipped: skipped.list(),
  });
}
