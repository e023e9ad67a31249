// node scripts/build-cli.mjs && node dist/questions.js FILE: load, replay, the rule texts and the
// rules of FILE, then bench/questions.ts's questions, printed and as one JSON line. A separate entry
// point, so that bundling the questions into bench.js does not run this.
import { SessionInspector } from '../src/main/session/inspector';
import { loadSession } from '../src/main/session/load';
import { askQuestions } from './questions';

async function main(path: string): Promise<void> {
  let t0 = performance.now();
  const session = await loadSession(path);
  const loadMs = performance.now() - t0;
  try {
    const inspector = new SessionInspector(session);
    t0 = performance.now();
    inspector.replay();
    const replayMs = performance.now() - t0;
    t0 = performance.now();
    await inspector.loadRuleTexts();
    const ruleTextsMs = performance.now() - t0;
    t0 = performance.now();
    const findings = inspector.diagnostics().length;
    const rulesMs = performance.now() - t0;
    console.log(
      `${path}: load ${loadMs.toFixed(0)} ms, replay ${replayMs.toFixed(0)} ms, rule texts ${ruleTextsMs.toFixed(0)} ms, rules ${rulesMs.toFixed(0)} ms (${findings} findings)`,
    );
    const q = await askQuestions(path, inspector, (msg) => console.log(`  ${msg}`));
    console.log(JSON.stringify({ loadMs, replayMs, ruleTextsMs, rulesMs, findings, ...q }));
  } finally {
    await session.dispose();
  }
}

const path = process.argv[2];
if (!path) {
  console.error('usage: node dist/questions.js FILE');
  process.exit(2);
}
await main(path);
