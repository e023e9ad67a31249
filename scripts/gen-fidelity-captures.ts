// Writes fixtures/captures/fidelity/<client>-<version>.<scenario>.capture.jsonl: a real capture by
// `palimpsest record`'s proxy of a fidelity run, made by sending the requests the client sent
// (fixtures/fidelity/logs/…/captured.jsonl, byte for byte) through the recording proxy to the mock
// provider playing the run's own scenario script, so the answers are the ones the client got.
// The app's tests open these beside the run's session. Usage: npx tsx scripts/gen-fidelity-captures.ts
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { readCaptured, startMockProvider, type ScriptInput } from '../src/main/mock';
import { CaptureFile } from '../src/main/record/capture-file';
import { startRecordingProxy } from '../src/main/record/proxy';
import { parseUpstreams } from '../src/main/record/routes';
import { RecordStats } from '../src/main/record/stats';

const RUNS = [
  { client: 'claude-code', version: '2.1.332', scenario: 'compact-http-500' },
  { client: 'claude-code', version: '2.1.332', scenario: 'compact-overloaded' },
];
const OUT = 'fixtures/captures/fidelity';
/** Headers the proxy or node:http sets for itself. */
const HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding']);

function send(url: string, method: string, headers: readonly (readonly [string, string])[], body: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const kept: Record<string, string> = {};
    for (const [k, v] of headers) if (!HOP.has(k.toLowerCase())) kept[k] = v;
    kept['Content-Length'] = String(body.length);
    const req = request(url, { method, headers: kept, agent: false }, (res) => {
      if ((res.statusCode ?? 0) === 400) reject(new Error(`${url}: the proxy or the mock refused the request (400)`));
      res.resume();
      res.on('end', () => resolve());
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function capture(run: (typeof RUNS)[number]): Promise<void> {
  const dir = join('fixtures/fidelity/logs', `${run.client}-${run.version}`, run.scenario);
  const scenario = JSON.parse(readFileSync(join('fixtures/fidelity/scenarios', `${run.client}.${run.scenario}.json`), 'utf8')) as {
    script: ScriptInput;
  };
  const { requests } = readCaptured(join(dir, 'captured.jsonl'));
  const mock = await startMockProvider({ script: scenario.script });
  const out = join(OUT, `${run.client}-${run.version}.${run.scenario}.capture.jsonl`);
  rmSync(out, { force: true });
  const file = await CaptureFile.create(
    out,
    { writer: 'palimpsest gen-fidelity-captures', startedAt: requests[0]?.at ?? new Date(0).toISOString(), upstreams: {} },
    true,
  );
  const proxy = await startRecordingProxy({
    upstreams: parseUpstreams([mock.url]),
    capture: file,
    stats: new RecordStats(),
    onWriteError: (err) => {
      throw err;
    },
  });
  try {
    for (const r of requests) {
      const body = r.bodyEncoding === 'base64' ? Buffer.from(r.body, 'base64') : Buffer.from(r.body, 'utf8');
      await send(`${proxy.url}/anthropic${r.path}`, r.method, r.headers, body);
    }
  } finally {
    await proxy.close(2000);
    await file.dispose();
    await mock.dispose();
  }
  console.log(`${out}: ${requests.length} exchanges`);
}

mkdirSync(OUT, { recursive: true });
for (const run of RUNS) await capture(run);
