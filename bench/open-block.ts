// node scripts/build-cli.mjs && node dist/open-block.js FILE [RUNS]: opens FILE through the app
// host's session registry, as the app does, and measures the longest stretch in which the host's
// thread did not turn its event loop — the longest any other request (another tab, the open bar's
// progress poll) waited for an answer. Only APIs older trees have too, so that it can measure them.
import { SessionRegistry } from '../src/main/api/sessions';

async function once(path: string): Promise<{ openMs: number; longestMs: number; phase: string; phases: string[] }> {
  const registry = new SessionRegistry({ allow: 'any' });
  let phase = 'start';
  const phases: string[] = [];
  let last = performance.now();
  let longest = 0;
  let longestPhase = '';
  let running = true;
  const tick = (): void => {
    const now = performance.now();
    if (now - last > longest) {
      longest = now - last;
      longestPhase = phase;
    }
    last = now;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  const t0 = performance.now();
  try {
    await registry.open(path, undefined, (e) => {
      if (e.operation === 'openSession' && e.phase !== phase) phases.push((phase = e.phase));
    });
    const openMs = performance.now() - t0;
    // One more turn, so that the stretch the open ended with is measured too.
    await new Promise((resolve) => setImmediate(resolve));
    return { openMs, longestMs: longest, phase: longestPhase, phases };
  } finally {
    running = false;
    registry.dispose();
  }
}

const path = process.argv[2];
if (!path) {
  console.error('usage: node dist/open-block.js FILE [RUNS]');
  process.exit(2);
}
const runs = Number(process.argv[3] ?? 1);
for (let i = 0; i < runs; i++) {
  const r = await once(path);
  console.log(
    `${path}: open ${r.openMs.toFixed(0)} ms, longest without a turn of the event loop ${r.longestMs.toFixed(0)} ms (it ended in phase ${r.phase}); phases ${r.phases.join(', ')}`,
  );
}
