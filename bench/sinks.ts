// The log-representation experiment of docs/performance.md: the same reader and Palimpsest importer
// into sinks that keep less. Usage: node --expose-gc dist/sinks.js FILE [ROUNDS]
import { open } from 'node:fs/promises';
import { palimpsestImporter } from '../src/main/importers/palimpsest';
import type { ImportSink } from '../src/main/importers/types';
import { readJsonl } from '../src/main/reader';
import type { JsonLine } from '../src/main/reader/types';
import { loadSession } from '../src/main/session/load';
import { EVENT_KINDS, type EventBody } from '../src/shared/model/event';
import { median } from './stats';

type Mode = 'reader' | 'none' | 'compact' | 'compact+previews' | 'current';
const MODES: Mode[] = ['reader', 'none', 'compact', 'compact+previews', 'current'];
const KIND = new Map<string, number>(EVENT_KINDS.map((k, i) => [k, i]));
const gc = (): void => (globalThis as { gc?: () => void }).gc?.();

class Column {
  a = new Float64Array(1024);
  n = 0;
  push(x: number): void {
    if (this.n === this.a.length) {
      const b = new Float64Array(this.n * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.n++] = x;
  }
}

/** The text a view shows of an item: every block's text, long ones cut to a 160-character copy. */
function previews(e: EventBody): string | null {
  if (e.kind !== 'item') return null;
  let out = '';
  for (const b of e.item.blocks) {
    const t =
      b.type === 'text' || b.type === 'reasoning'
        ? b.text
        : b.type === 'tool_call'
          ? b.input
          : b.type === 'tool_result'
            ? b.content.map((c) => (c.type === 'text' ? c.text : '')).join('')
            : '';
    out += t.length > 384 ? structuredClone(t.slice(0, 160)) : t;
  }
  return out;
}

async function viaSink(path: string, mode: Mode): Promise<unknown> {
  const kinds: number[] = [],
    ids: (string | null)[] = [],
    texts: (string | null)[] = [];
  const offset = new Column(),
    length = new Column(),
    line = new Column(),
    usage = new Column();
  let n = 0;
  const sink: ImportSink = {
    emit(e: EventBody, from: JsonLine): number {
      if (mode === 'compact' || mode === 'compact+previews') {
        kinds.push(KIND.get(e.kind) ?? 255);
        ids.push(e.kind === 'item' ? e.item.id : e.kind === 'request' ? e.id : e.kind === 'response' ? e.request : null);
        offset.push(from.offset);
        length.push(from.length);
        line.push(from.line);
        if (mode === 'compact+previews') {
          texts.push(previews(e));
          if (e.kind === 'response')
            for (const x of [e.usage?.input, e.usage?.output, e.usage?.cacheRead, e.usage?.cacheWrite]) usage.push(x ?? -1);
        }
      }
      return n++;
    },
    diagnostic: () => undefined,
    get nextSeq(): number {
      return n;
    },
  };
  const file = palimpsestImporter.open({ path, index: 0 }, sink);
  await readJsonl(
    path,
    (l) => file.line(l),
    () => undefined,
  );
  file.end();
  return { kinds, ids, texts, offset, length, line, usage };
}

async function bareLoop(path: string): Promise<void> {
  const fh = await open(path, 'r');
  const buf = Buffer.allocUnsafe(1 << 20);
  let carry: Buffer | null = null;
  for (;;) {
    const { bytesRead } = await fh.read(buf, 0, buf.length, null);
    if (bytesRead === 0) break;
    const chunk = buf.subarray(0, bytesRead);
    let pos = 0;
    for (let nl = chunk.indexOf(10, pos); nl !== -1; pos = nl + 1, nl = chunk.indexOf(10, pos)) {
      JSON.parse(carry ? Buffer.concat([carry, chunk.subarray(pos, nl)]).toString('utf8') : chunk.toString('utf8', pos, nl));
      carry = null;
    }
    if (pos < chunk.length) carry = carry ? Buffer.concat([carry, chunk.subarray(pos)]) : Buffer.from(chunk.subarray(pos));
  }
  if (carry) JSON.parse(carry.toString('utf8'));
  await fh.close();
}

const [path, roundsText] = process.argv.slice(2);
if (!path) throw new Error('usage: sinks.js FILE [ROUNDS]');
const held: { x: unknown } = { x: null };
gc();
const base = process.memoryUsage().heapUsed;
const ms = new Map<Mode | 'bare', number[]>([['bare', []], ...MODES.map((m): [Mode, number[]] => [m, []])]);
const heap = new Map<Mode, number>();
for (let r = 0; r < Number(roundsText ?? 5); r++) {
  held.x = null;
  gc();
  let t = performance.now();
  await bareLoop(path);
  ms.get('bare')?.push(performance.now() - t);
  for (const m of r % 2 ? [...MODES].reverse() : MODES) {
    held.x = null;
    gc();
    t = performance.now();
    held.x =
      m === 'current'
        ? await loadSession(path)
        : m === 'reader'
          ? await readJsonl(
              path,
              () => undefined,
              () => undefined,
            )
          : await viaSink(path, m);
    ms.get(m)?.push(performance.now() - t);
    gc();
    heap.set(m, (process.memoryUsage().heapUsed - base) / 1e6);
  }
}
const bare = ms.get('bare') ?? [];
for (const [m, xs] of ms) {
  const ratios = xs.map((x, i) => (bare[i] ?? NaN) / x);
  console.log(
    `${m.padEnd(17)} ${median(xs).toFixed(0).padStart(6)} ms  ratio ${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})` +
      (m === 'bare' ? '' : `  heap kept ${(heap.get(m) ?? NaN).toFixed(1)} MB`),
  );
}
