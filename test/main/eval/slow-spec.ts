import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/* The DeepSeek Harness example spec of fixtures/eval and a slow copy of it (the eval tests, in main and in Chromium). */

export const DSH_SPEC = resolve('fixtures/eval/dsh.spec.yaml');
export const DSH_TRACE = resolve('fixtures/dsh/examples/headless-agent/tests/snapshots/compaction-recovery/session.jsonl');
export const DSH_FACTS = resolve('fixtures/eval/facts/dsh-compaction-recovery.facts.yaml');

/** The same trace and facts, the mock's replay answering only after 30 s, one cell at a time: a run to cancel. Written in `dir`. */
export function slowSpec(dir: string): string {
  const file = join(dir, 'slow.spec.yaml');
  const reply = { content: [{ type: 'text', text: 'The request established a durable compaction premise.' }], firstByteMs: 30_000 };
  writeFileSync(
    file,
    JSON.stringify({
      name: 'dsh-slow',
      concurrency: 1,
      traces: [
        {
          path: DSH_TRACE,
          format: 'dsh',
          targets: 'compactions',
          facts: DSH_FACTS,
          budget: { window: 6000 },
          mock: { script: { steps: [{ when: { model: 'replay-original' }, times: 0, reply }] } },
        },
      ],
      strategies: [
        { id: 'truncate', options: { tailTokens: 60, keepFirstUser: false } },
        { id: 'one-shot', options: { tailTokens: 60 } },
      ],
      models: [{ provider: 'mock', model: 'replay-original' }],
    }),
  );
  return file;
}
