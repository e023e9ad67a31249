import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { attachCaptures, readCaptures } from '../src/main/capture/attach';
import { SessionInspector } from '../src/main/session/inspector';
import { loadSession } from '../src/main/session/load';
import { median } from './stats';

/*
 * Opening a session with its capture against opening it alone (target: ≤ 1.2× on a ~3 MB
 * session). The data: a real Claude Code 2.1.332 run recorded through `palimpsest record`
 * (fixtures/fidelity/recorded/…/compact-http-500: a /compact with two HTTP 500s), repeated until the
 * log passes 3 MB, every uuid but the session's and every API id rewritten per copy in the log and
 * the capture alike — so each copy's requests still pair with their own exchanges, and all of them
 * belong to the one session. "Opening" is what `inspect` does before it prints: load, replay,
 * diagnostics; with the capture also read, decode and join.
 */

export const JOINED_TARGET_RATIO = 1.2;
export const JOINED_VERSION = 1;
const RUN = 'fixtures/fidelity/recorded/claude-code-2.1.332/compact-http-500';
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const API_ID = /\b(msg|req|toolu|srvtoolu)_([0-9A-Za-z]+)/g;

function rewrite(text: string, copy: number, keep: string): string {
  if (copy === 0) return text;
  const key = Math.imul(copy + 1, 0x9e3779b1) >>> 0 || 1;
  return text
    .replace(UUID, (u) => (u === keep ? u : ((parseInt(u.slice(0, 8), 16) ^ key) >>> 0).toString(16).padStart(8, '0') + u.slice(8)))
    .replace(API_ID, (_m, p: string, body: string) => `${p}_c${copy.toString(36)}${body}`);
}

export function ensureJoinedData(dataDir: string, targetBytes = 3_000_000): { log: string; capture: string } {
  const log = join(dataDir, `joined3mb.v${JOINED_VERSION}.jsonl`);
  const capture = join(dataDir, `joined3mb.v${JOINED_VERSION}.capture.jsonl`);
  if (existsSync(log) && existsSync(capture)) return { log, capture };
  mkdirSync(dataDir, { recursive: true });
  const run = JSON.parse(readFileSync(join(RUN, 'run.json'), 'utf8')) as { mainLog: string; captures: string[]; sessionId: string };
  const logText = readFileSync(join(RUN, run.mainLog), 'utf8');
  const lines = run.captures.flatMap((c) =>
    readFileSync(join(RUN, c), 'utf8')
      .split('\n')
      .filter((l) => l !== ''),
  );
  const header = lines.find((l) => l.includes('"type":"capture"')) as string;
  const exchanges = lines.filter((l) => l.includes('"type":"exchange"'));
  const outLog: string[] = [];
  const outCap: string[] = [header];
  let bytes = 0;
  let seq = 0;
  for (let copy = 0; bytes < targetBytes; copy++) {
    const t = rewrite(logText, copy, run.sessionId);
    outLog.push(t.endsWith('\n') ? t : `${t}\n`);
    bytes += t.length;
    for (const x of exchanges) {
      const o = JSON.parse(rewrite(x, copy, run.sessionId)) as { seq: number; startedAt: string };
      o.seq = seq++;
      // Later copies happen later: every exchange keeps its place in time.
      o.startedAt = new Date(Date.parse(o.startedAt) + copy * 3_600_000).toISOString();
      outCap.push(JSON.stringify(o));
    }
  }
  writeFileSync(log, outLog.join(''));
  writeFileSync(capture, `${outCap.join('\n')}\n`);
  return { log, capture };
}

export interface JoinedBenchResult {
  readonly logBytes: number;
  readonly captureBytes: number;
  readonly requests: number;
  readonly joinedRequests: number;
  readonly aloneMs: number[];
  readonly joinedMs: number[];
  readonly ratio: number;
  readonly pass: boolean;
}

async function open(log: string, capture: string | null): Promise<{ ms: number; requests: number }> {
  const t0 = performance.now();
  const ins = new SessionInspector(await loadSession(log));
  try {
    if (capture) await attachCaptures(ins, await readCaptures([capture]));
    await ins.loadRuleTexts();
    ins.diagnostics();
    const requests = ins.wire()?.requests.length ?? ins.replay().requests.length;
    return { ms: performance.now() - t0, requests };
  } finally {
    await ins.session.dispose();
  }
}

export async function runJoinedBench(dataDir: string, rounds: number, log: (m: string) => void): Promise<JoinedBenchResult> {
  const data = ensureJoinedData(dataDir);
  log(
    `${data.log} (${(statSync(data.log).size / 1e6).toFixed(1)} MB) with ${data.capture} (${(statSync(data.capture).size / 1e6).toFixed(1)} MB)`,
  );
  await open(data.log, null);
  await open(data.log, data.capture);
  const alone: number[] = [];
  const joined: number[] = [];
  let requests = 0;
  let joinedRequests = 0;
  // Alternated, so that both see the same machine load.
  for (let i = 0; i < Math.max(rounds, 5); i++) {
    const a = await open(data.log, null);
    const j = await open(data.log, data.capture);
    alone.push(a.ms);
    joined.push(j.ms);
    requests = a.requests;
    joinedRequests = j.requests;
  }
  const ratio = median(joined) / median(alone);
  return {
    logBytes: statSync(data.log).size,
    captureBytes: statSync(data.capture).size,
    requests,
    joinedRequests,
    aloneMs: alone,
    joinedMs: joined,
    ratio,
    pass: ratio <= JOINED_TARGET_RATIO,
  };
}
