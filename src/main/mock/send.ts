import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Answer } from './protocols/types';
import { pause } from '../async/pause';

/*
 * Writing one answer on the wire, at the pace asked for. Every wait ends as soon as the client is
 * gone (`gone` aborts when the response closes), so a slow stream never outlives its client and a
 * benchmark's latency never holds a socket nobody reads.
 */

export interface Timing {
  /** Before the status line and headers. */
  readonly firstByteMs: number;
  /** Between SSE events. */
  readonly eventDelayMs: number;
}

export { pause };

function write(res: ServerResponse, chunk: string): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed) resolve();
    else res.write(chunk, () => resolve());
  });
}

export async function send(req: IncomingMessage, res: ServerResponse, a: Answer, timing: Timing, gone: AbortSignal): Promise<void> {
  await pause(timing.firstByteMs, gone);
  if (gone.aborted) return;
  if (a.kind === 'destroy') {
    req.socket.destroy();
    return;
  }
  if (a.kind === 'json') {
    const body = JSON.stringify(a.body);
    res.writeHead(a.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...a.headers });
    res.end(body);
    return;
  }
  res.writeHead(a.status, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...a.headers });
  const frame = (e: (typeof a.events)[number]): string =>
    `${e.event !== undefined ? `event: ${e.event}\n` : ''}data: ${e.rawData ?? JSON.stringify(e.data)}\n\n`;
  if (timing.eventDelayMs <= 0 && a.cutAfter === undefined) {
    // Unpaced and whole: the stream goes out in one write with the headers, as a provider's buffered
    // events often arrive. One event per write would cost the client a wake-up per event, which a
    // benchmark would count against the client (bench/rerun.ts).
    res.end(a.events.map(frame).join(''));
    return;
  }
  res.flushHeaders();
  let sent = 0;
  for (const e of a.events) {
    if (sent > 0) await pause(timing.eventDelayMs, gone);
    if (gone.aborted) return;
    if (a.cutAfter !== undefined && sent >= a.cutAfter) {
      req.socket.destroy();
      return;
    }
    await write(res, frame(e));
    sent++;
  }
  res.end();
}
