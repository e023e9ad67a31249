// node scripts/build-cli.mjs && node dist/follow-change.js [CHANGES]
//
// Where the time of one change goes when a long session is followed: the follow soak's
// ten-minute file (the 3.2 MB Claude Code fixture's lines, 20 rounds, ids suffixed by round:
// 63 MB) less its last CHANGES lines (default 40) is loaded to read on, and those lines are then
// appended one at a time, each read as the follower reads a change (src/main/follow/follower.ts),
// step by step: reading on (the lines, a copy of the import ended, the session made), the
// inspector (findings' rule texts, branches, replay), the compactions' survival (which the
// follower measures again only when a compaction appears or ends), the JSON the follower
// compares, and the comparison. Median and max of each step over the changes after the first five.
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { diffStates, type FollowState } from '../src/main/follow/diff';
import { inspectJson } from '../src/main/present/json';
import { branchSurvival } from '../src/main/session/forensics';
import { SessionInspector } from '../src/main/session/inspector';
import { loadSession } from '../src/main/session/load';
import { sourceLine } from './soak-source';

const FILE = 'fixtures/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl';
const LINES = 30_000;

async function main(): Promise<void> {
  const changes = Number(process.argv[2] ?? 40);
  const source = readFileSync(FILE, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
  const dir = mkdtempSync(join(tmpdir(), 'palimpsest-follow-change-'));
  const path = join(dir, 'session.jsonl');
  try {
    const head: string[] = [];
    for (let k = 0; k < LINES - changes; k++) head.push(sourceLine(source, k));
    writeFileSync(path, head.join('\n') + '\n');
    let t = performance.now();
    let current = new SessionInspector(await loadSession(path, { resumable: true }));
    await current.loadRuleTexts();
    console.log(`${path}: ${LINES - changes} lines loaded to read on in ${Math.round(performance.now() - t)} ms`);
    const steps = new Map<string, number[]>();
    const timed = async <T>(step: string, f: () => T | Promise<T>): Promise<T> => {
      const at = performance.now();
      const out = await f();
      steps.set(step, [...(steps.get(step) ?? []), performance.now() - at]);
      return out;
    };
    let state: FollowState | null = null;
    t = performance.now();
    for (let k = LINES - changes; k < LINES; k++) {
      appendFileSync(path, `${sourceLine(source, k)}\n`);
      const read = await timed('read on: the lines, a copy of the import ended, the session', () => current.session.readOn?.());
      if (!read) throw new Error(`line ${k + 1} was not read on`);
      const next = await timed('the inspector: rule texts, branches, replay', async () => {
        const ins = new SessionInspector(read);
        await ins.loadRuleTexts();
        ins.replay(ins.defaultBranch);
        return ins;
      });
      const branch = next.defaultBranch;
      const survival = await timed('survival of the compactions (when one changed)', async () => {
        return new Map((await branchSurvival(next, branch)).map((c) => [c.id, c.survival]));
      });
      const j = await timed("the follower's JSON (requests, compactions, findings)", () => inspectJson(path, next, branch, [], survival));
      await timed('the comparison', () => {
        const s: FollowState = { requests: j.requests, compactions: j.compactions, findings: j.diagnostics };
        diffStates(state, s);
        state = s;
      });
      await current.session.dispose();
      current = next;
    }
    // The first five changes warm the code up; with five or fewer, every change is counted.
    const skip = changes > 5 ? 5 : 0;
    console.log(
      `${changes} changes of one line in ${Math.round(performance.now() - t)} ms; per change${skip > 0 ? ', after the first five' : ''}:`,
    );
    for (const [step, ms] of steps) {
      const s = ms.slice(skip).sort((a, b) => a - b);
      console.log(`  ${step}: median ${(s[Math.floor(s.length / 2)] ?? NaN).toFixed(1)} ms, max ${(s[s.length - 1] ?? NaN).toFixed(1)} ms`);
    }
    await current.session.dispose();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
