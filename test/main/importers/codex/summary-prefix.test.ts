import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SUMMARY_PREFIX, SUMMARY_PREFIX_HEAD } from '../../../../src/main/importers/codex/known';

/** The rollouts Codex wrote against the mock (fixtures/fidelity/logs), by version. */
const ROOT = 'fixtures/fidelity/logs';

function rollouts(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.startsWith('rollout-') && e.name.endsWith('.jsonl'))
    .map((e) => join(e.parentPath, e.name));
}

/** The `message` of every compacted line that carries the summary prefix. */
function prefixedMessages(path: string): string[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.includes('"type":"compacted"'))
    .map((l) => (JSON.parse(l) as { payload: { message: string } }).payload.message)
    .filter((m) => m.startsWith(SUMMARY_PREFIX_HEAD));
}

describe('SUMMARY_PREFIX', () => {
  it('is the prefix every Codex in the fixtures logs before its summary', () => {
    const messages = readdirSync(ROOT)
      .filter((d) => d.startsWith('codex-'))
      .flatMap((d) => rollouts(join(ROOT, d)).flatMap(prefixedMessages));
    expect(messages.length).toBeGreaterThan(0);
    for (const m of messages) expect(m.slice(0, SUMMARY_PREFIX.length + 1)).toBe(`${SUMMARY_PREFIX}\n`);
  });
});
