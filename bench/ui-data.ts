// A session whose last model view holds 100,000 items, for the UI bench's scrolling figure
// (bench/ui-bench.ts). No compaction ever runs, so the view is the whole history: the worst case of
// the virtualised model view. Deterministic (the bench's seeded PRNG), written a line at a time.
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Rng } from './generate';

export const VIEW_DATA_VERSION = 1;
export const VIEW_FILE = 'v100k.jsonl';

const WORDS =
  'the view model item request raw history compaction summary token window fate provenance tool call result checkpoint branch segment'.split(
    ' ',
  );

function text(rng: Rng, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(rng.pick(WORDS));
  return out.join(' ');
}

export interface ViewDataMeta {
  readonly version: number;
  readonly items: number;
  readonly bytes: number;
}

/**
 * Writes `items` conversation items in units of four (user, assistant call, tool result, assistant
 * text) and one agent request after them. A tenth of the results are long (they are elided in
 * memory and shown collapsed, as real tool output is).
 */
export function ensureViewData(dir: string, items = 100_000, log: (s: string) => void = () => undefined): string {
  const path = join(dir, VIEW_FILE);
  const metaPath = `${path}.meta.json`;
  if (existsSync(path) && existsSync(metaPath)) {
    const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as ViewDataMeta;
    if (meta.version === VIEW_DATA_VERSION && meta.items === items && statSync(path).size === meta.bytes) {
      log(`  ${VIEW_FILE}: present (${items.toLocaleString('en-US')} items), kept`);
      return path;
    }
  }
  mkdirSync(dirname(path), { recursive: true });
  const rng = new Rng(100_000);
  const tmp = `${path}.partial`;
  const fd = openSync(tmp, 'w');
  let bytes = 0;
  let seq = 0;
  let batch: string[] = [];
  const line = (o: object): void => {
    batch.push(JSON.stringify({ seq: seq++, ...o }));
    if (batch.length >= 2000) flush();
  };
  const flush = (): void => {
    if (batch.length === 0) return;
    const chunk = batch.join('\n') + '\n';
    bytes += Buffer.byteLength(chunk);
    writeSync(fd, chunk);
    batch = [];
  };
  try {
    line({ kind: 'session', id: 'ui-bench-100k', harness: 'palimpsest-bench', format: 'palimpsest', version: 1 });
    line({
      kind: 'header',
      system: [{ type: 'text', text: text(rng, 400) }],
      tools: [{ name: 'read_file', description: 'Read a file', inputSchema: { type: 'object' } }],
      route: { provider: 'bench', model: 'bench-1', window: 50_000_000, maxOutput: 8192 },
    });
    for (let i = 0; i < items; i += 4) {
      const n = i / 4;
      line({ kind: 'item', item: { id: `u${n}`, role: 'user', blocks: [{ type: 'text', text: text(rng, rng.range(4, 30)) }] } });
      line({
        kind: 'item',
        item: {
          id: `c${n}`,
          role: 'assistant',
          blocks: [
            { type: 'tool_call', id: `call${n}`, name: 'read_file', input: JSON.stringify({ path: `src/${text(rng, 1)}/${n}.ts` }) },
          ],
        },
      });
      const long = rng.chance(0.1);
      line({
        kind: 'item',
        item: {
          id: `r${n}`,
          role: 'tool',
          blocks: [
            {
              type: 'tool_result',
              callId: `call${n}`,
              content: [{ type: 'text', text: text(rng, long ? rng.range(300, 2000) : rng.range(5, 50)) }],
            },
          ],
        },
      });
      line({ kind: 'item', item: { id: `a${n}`, role: 'assistant', blocks: [{ type: 'text', text: text(rng, rng.range(3, 40)) }] } });
    }
    line({ kind: 'request', id: 'req-last', purpose: 'agent' });
    line({ kind: 'response', request: 'req-last', finish: { raw: 'stop', reason: 'stop' }, usage: { input: 1_000_000, output: 10 } });
    flush();
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  const meta: ViewDataMeta = { version: VIEW_DATA_VERSION, items, bytes };
  writeFileSync(metaPath, JSON.stringify(meta) + '\n');
  log(`  ${VIEW_FILE}: ${items.toLocaleString('en-US')} items, ${(bytes / 1e6).toFixed(1)} MB`);
  return path;
}
