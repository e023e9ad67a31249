// node scripts/build-cli.mjs && node --expose-gc dist/soak.js [FILE] [--seconds N] [--rate R] [--ui] [--snapshot OUT]
//
// The follow soak: a writer (a worker thread, so that a load on this thread never delays a write)
// appends FILE's lines to a copy at R lines a second (default 50) for N seconds (default 600, the
// documented run), while a SessionFollower follows the copy. The copy starts with the lines before
// FILE's first compaction less half the run, so the compaction is written in the middle. A run
// longer than FILE goes on with FILE's lines again, every id-like token given the round's suffix
// (so that ids stay unique; the session then has one compaction a round). At the end: the
// followed state equals a fresh load (every event, request, compaction and finding), and the
// latency from each write to the first emit whose load covered it, p50/p99, and the follower's
// memory at the start and at the end: what the heap and byte arrays lose when it is let go.
//
// --snapshot OUT: a heap snapshot to OUT after the follower's first load, before the writer starts
// (bench/heap-summary.mjs says what holds it).
//
// --ui: the web UI follows instead (soak-ui.ts; `npx electron-vite build` first): Chromium shows the
// copy with Follow on, and the latency is from the write of each request's line to the page
// showing it; at the end the page shows what a fresh load shows. --seconds defaults to 60 there.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import { Worker } from 'node:worker_threads';
import type { FollowUpdate } from '../src/main/follow/diff';
import { SessionFollower } from '../src/main/follow/follower';
import { soakInChromium } from './soak-ui';
import { inspectJson } from '../src/main/present/json';
import { SessionInspector } from '../src/main/session/inspector';
import { loadSession } from '../src/main/session/load';
import { branchSurvival } from '../src/main/session/forensics';
import type { LoadedSession } from '../src/main/session/types';
import { sourceLine } from './soak-source';

const DEFAULT_FILE = 'fixtures/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl';

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

// The lines to append come as one buffer and each line's end in it, moved to the worker: neither
// the text nor a copy of it stays on this thread's heap, whose growth the bench reports.
const WRITER = `
const { parentPort, workerData } = require('node:worker_threads');
const { openSync, writeSync, closeSync } = require('node:fs');
const { path, data, ends, rate } = workerData;
const fd = openSync(path, 'a');
let i = 0;
let offset = workerData.offset;
const start = performance.timeOrigin + performance.now();
const writes = [];
const tick = () => {
  const now = performance.timeOrigin + performance.now();
  // Catch up to the schedule: line i is due at start + i / rate.
  while (i < ends.length && start + (i * 1000) / rate <= now) {
    const from = i === 0 ? 0 : ends[i - 1];
    writeSync(fd, data, from, ends[i] - from);
    offset += ends[i] - from;
    writes.push([performance.timeOrigin + performance.now(), offset]);
    i++;
  }
  if (i < ends.length) setTimeout(tick, Math.max(0, start + (i * 1000) / rate - now));
  else { closeSync(fd); parentPort.postMessage(writes); }
};
tick();
`;

/** The run's file: the lines written before the follower starts, and those the writer appends (one buffer, each line's end). */
function plan(file: string, total: number): { head: string; first: number; compactionAt: number; data: Uint8Array; ends: Float64Array } {
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
  const compactionAt = lines.findIndex((l) => /compact_boundary|"type":"compacted"|"compaction\/start"/.test(l));
  const first = Math.max(1, (compactionAt >= 0 ? compactionAt : Math.floor(lines.length / 2)) - Math.floor(total / 2));
  const parts: Buffer[] = [];
  const ends = new Float64Array(total);
  let at = 0;
  for (let k = 0; k < total; k++) {
    const b = Buffer.from(`${sourceLine(lines, first + k)}\n`);
    parts.push(b);
    ends[k] = at += b.length;
  }
  // Its own memory (not a slice of Buffer's shared pool), so that it can be moved to the writer.
  const data = new Uint8Array(at);
  for (let k = 0, o = 0; k < parts.length; o += (parts[k] as Buffer).length, k++) data.set(parts[k] as Buffer, o);
  return { head: lines.slice(0, first).join('\n') + '\n', first, compactionAt, data, ends };
}

/** As `inspect --follow` opens it: resumable, so that appended lines are read on (or the session read on, `loaded`). */
async function openFollowed(path: string, loaded?: LoadedSession): Promise<SessionInspector> {
  const inspector = new SessionInspector(loaded ?? (await loadSession(path, { resumable: true })));
  await inspector.loadRuleTexts();
  return inspector;
}

const percentile = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};
const mb = (b: number): string => `${(b / 1e6).toFixed(1)} MB`;
const gc = (): void => (globalThis as { gc?: () => void }).gc?.();
/** Memory after a gc, a pause (file handles closed, byte arrays freed after the gc) and a gc again. */
async function settled(): Promise<NodeJS.MemoryUsage> {
  gc();
  await new Promise((ok) => setTimeout(ok, 100));
  gc();
  return process.memoryUsage();
}

async function main(): Promise<void> {
  const file = process.argv[2] && !process.argv[2].startsWith('--') ? process.argv[2] : DEFAULT_FILE;
  const ui = process.argv.includes('--ui');
  const seconds = flag('seconds', ui ? 60 : 600);
  const rate = flag('rate', 50);
  const total = Math.round(seconds * rate);
  const { head, first, compactionAt, data, ends } = plan(file, total);
  const dir = mkdtempSync(join(tmpdir(), 'palimpsest-soak-'));
  const path = join(dir, 'session.jsonl');
  try {
    writeFileSync(path, head);
    console.log(
      `soak: ${file}, ${first} lines first (${mb(statSync(path).size)}), then ${total} lines at ${rate}/s for ${seconds} s; compaction at line ${compactionAt + 1} of the source`,
    );

    const write = async (): Promise<[number, number][]> => {
      const worker = new Worker(WRITER, {
        eval: true,
        workerData: { path, data, ends, rate, offset: statSync(path).size },
        transferList: [data.buffer as ArrayBuffer, ends.buffer as ArrayBuffer],
      });
      try {
        return await new Promise<[number, number][]>((ok, fail) => {
          worker.once('message', ok);
          worker.once('error', fail);
        });
      } finally {
        await worker.terminate();
      }
    };
    if (ui) {
      const result = { file, seconds, rate, ...(await soakInChromium({ path, first, write })) };
      console.log(JSON.stringify(result));
      if (result.missedRequests > 0 || !Object.values(result.equalsFreshLoad).every(Boolean)) process.exitCode = 1;
      return;
    }

    const requests = new Map<number, unknown>();
    const compactions = new Map<string, unknown>();
    const findings = new Map<string, number>();
    let reloads = 0;
    const apply = (u: FollowUpdate): void => {
      const { type, ...entry } = u;
      if (type === 'reloaded') {
        reloads++;
        requests.clear();
        compactions.clear();
        findings.clear();
      } else if (type === 'request') requests.set((entry as { index: number }).index, entry);
      else if (type === 'compaction') compactions.set((entry as { id: string }).id, entry);
      else {
        const key = JSON.stringify(entry);
        findings.set(key, (findings.get(key) ?? 0) + (type === 'finding' ? 1 : -1));
      }
    };
    const loads: { bytes: number; at: number; readOn: boolean }[] = [];
    const start = (): Promise<SessionFollower> =>
      SessionFollower.start({ path, open: openFollowed, onUpdate: apply, onLoaded: (l) => void loads.push(l) });
    // The follower's memory is what the heap and the byte arrays (`external`, outside the heap)
    // lose when it is let go, measured settled both times; the process's heap holds the bench's own
    // too (its code, the writer's bookkeeping, the entries emitted). At the start, a first follower
    // of the same bytes is measured so and let go.
    const used = (m: NodeJS.MemoryUsage): number => m.heapUsed + m.external;
    let probe: SessionFollower | null = await start();
    const withProbe = used(await settled());
    await probe.dispose();
    probe = null;
    const heldAtStart = withProbe - used(await settled());
    loads.length = 0;
    requests.clear();
    compactions.clear();
    findings.clear();
    let follower: SessionFollower | null = await start();
    const before = await settled();
    const snapshot = process.argv.indexOf('--snapshot');
    if (snapshot >= 0) writeHeapSnapshot(process.argv[snapshot + 1]);
    const startBytes = statSync(path).size;
    const writes = await write();
    const endBytes = statSync(path).size;
    // Caught up: a load that read everything written.
    const deadline = Date.now() + 60_000;
    while (!loads.some((l) => l.bytes >= endBytes) && Date.now() < deadline) await new Promise((ok) => setTimeout(ok, 50));
    const after = await settled();
    const eventsHash = (ins: SessionInspector): string => {
      const h = createHash('sha1');
      for (let s = 0; s < ins.session.events.length; s++) h.update(JSON.stringify(ins.session.events.at(s)));
      return h.digest('hex');
    };
    const followedEvents = eventsHash(follower.current as SessionInspector);
    await follower.dispose();
    follower = null;
    const heldAtEnd = used(after) - used(await settled());

    const latencies: number[] = [];
    let missed = 0;
    for (const [t, offset] of writes) {
      const load = loads.find((l) => l.bytes >= offset && l.at >= t);
      if (load) latencies.push(load.at - t);
      else missed++;
    }

    // The followed state against a fresh load of the same bytes.
    const fresh = new SessionInspector(await loadSession(path));
    await fresh.loadRuleTexts();
    // With the compactions' survival rates, as the follower emits them.
    const survival = new Map((await branchSurvival(fresh, fresh.defaultBranch)).map((c) => [c.id, c.survival]));
    const j = inspectJson(path, fresh, fresh.defaultBranch, [], survival);
    const freshFindings = new Map<string, number>();
    for (const d of j.diagnostics) freshFindings.set(JSON.stringify(d), (freshFindings.get(JSON.stringify(d)) ?? 0) + 1);
    for (const [k, n] of [...findings]) if (n === 0) findings.delete(k);
    const checks = {
      events: followedEvents === eventsHash(fresh),
      requests: JSON.stringify([...requests.values()]) === JSON.stringify(j.requests),
      compactions: JSON.stringify([...compactions.values()]) === JSON.stringify(j.compactions),
      findings: JSON.stringify([...findings].sort()) === JSON.stringify([...freshFindings].sort()),
    };
    await fresh.session.dispose();

    const result = {
      file,
      seconds,
      rate,
      linesWritten: writes.length,
      bytesAppended: endBytes - startBytes,
      finalBytes: endBytes,
      loads: loads.length,
      readOn: loads.filter((l) => l.readOn).length,
      reloads,
      requests: j.requests.length,
      compactions: j.compactions.length,
      latencyMs: {
        p50: Math.round(percentile(latencies, 50)),
        p99: Math.round(percentile(latencies, 99)),
        max: Math.round(Math.max(...latencies)),
      },
      missedWrites: missed,
      // What the follower holds (see above), then the process's heap and RSS: the bench's own and
      // the writer thread's included (RSS), so they are not the follower's.
      followerMemory: { start: heldAtStart, end: heldAtEnd },
      heapUsed: { start: before.heapUsed, end: after.heapUsed },
      rss: { start: before.rss, end: after.rss },
      equalsFreshLoad: checks,
    };
    console.log(
      `wrote ${writes.length} lines (${mb(result.bytesAppended)}; ${mb(endBytes)} in all) in ${loads.length} loads (${result.readOn} read on); write→emit p50 ${result.latencyMs.p50} ms, p99 ${result.latencyMs.p99} ms, max ${result.latencyMs.max} ms; ` +
        `the follower's memory ${mb(heldAtStart)} → ${mb(heldAtEnd)} (the process's: heap ${mb(before.heapUsed)} → ${mb(after.heapUsed)}, rss ${mb(before.rss)} → ${mb(after.rss)}); ` +
        `equals a fresh load: ${Object.entries(checks)
          .map(([k, v]) => `${k} ${v ? 'yes' : 'NO'}`)
          .join(', ')}`,
    );
    console.log(JSON.stringify(result));
    if (missed > 0 || !Object.values(checks).every(Boolean)) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
