import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { CaptureLine, type CapturedExchange } from '../../../src/main/capture/format';
import { type MockProvider, type ScriptInput, startMockProvider } from '../../../src/main/mock';
import { CaptureFile } from '../../../src/main/record/capture-file';
import { startRecordingProxy, type RecordingProxy } from '../../../src/main/record/proxy';
import { parseUpstreams } from '../../../src/main/record/routes';
import { RecordStats } from '../../../src/main/record/stats';

/* A mock provider with the recording proxy in front of it, closed after each test. */

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

export function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'palimpsest-record-test-'));
  cleanups.push(async () => rmSync(d, { recursive: true, force: true }));
  return d;
}

export async function mock(script: ScriptInput, eventDelayMs = 0): Promise<MockProvider> {
  const m = await startMockProvider({ script, eventDelayMs });
  cleanups.push(() => m.dispose());
  return m;
}

export interface Rig {
  readonly proxy: RecordingProxy;
  readonly capturePath: string;
  readonly stats: RecordStats;
  /** Closes the proxy (writing what is in flight) and returns the capture's lines, each checked against the schema. */
  lines(): Promise<CapturedExchange[]>;
}

export async function rig(upstream: string | readonly string[]): Promise<Rig> {
  const dir = tempDir();
  const capturePath = join(dir, 'test.capture.jsonl');
  const upstreams = parseUpstreams(typeof upstream === 'string' ? [upstream] : upstream);
  const capture = await CaptureFile.create(capturePath, { writer: 'test', startedAt: new Date().toISOString(), upstreams: {} }, false);
  const stats = new RecordStats();
  const proxy = await startRecordingProxy({
    upstreams,
    capture,
    stats,
    onWriteError: (err) => {
      throw err;
    },
  });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await proxy.close(2000);
    await capture.dispose();
  };
  cleanups.push(close);
  return {
    proxy,
    capturePath,
    stats,
    async lines() {
      await close();
      const text = readFileSync(capturePath, 'utf8');
      const lines = text.split('\n');
      if (lines.pop() !== '') throw new Error('the capture does not end with a line feed');
      const parsed = lines.map((l) => CaptureLine.parse(JSON.parse(l)));
      if (parsed[0]?.type !== 'capture') throw new Error('the first line is not the header');
      return parsed
        .slice(1)
        .map((p) => {
          if (p.type !== 'exchange') throw new Error('a second header');
          return p;
        })
        .sort((a, b) => a.seq - b.seq);
    },
  };
}

export interface Reply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly rawHeaders: string[];
  readonly body: Buffer;
  /** Arrival of each chunk. */
  readonly chunks: number;
}

/** One request with node:http, the body exactly as given; rejects when the response is cut. */
export function send(url: string, opts: { method?: string; headers?: Record<string, string>; body?: Buffer | string }): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: opts.method ?? 'POST', headers: opts.headers, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          rawHeaders: res.rawHeaders,
          body: Buffer.concat(parts),
          chunks: parts.length,
        }),
      );
      res.on('error', reject);
      res.on('aborted', () => reject(new Error('aborted')));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** Headers that describe one connection or the moment, not the message. */
const VOLATILE = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

export const stableHeaders = (raw: readonly string[]): string[][] => {
  const out: string[][] = [];
  for (let i = 0; i + 1 < raw.length; i += 2)
    if (!VOLATILE.has((raw[i] as string).toLowerCase())) out.push([raw[i] as string, raw[i + 1] as string]);
  return out;
};
