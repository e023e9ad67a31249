import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { validateSession } from '../../../src/main/cli/validate';
import { SessionInspector } from '../../../src/main/session/inspector';
import { loadSession } from '../../../src/main/session/load';

/*
 * CONSTRAINT_LOST reports a compaction once, however many constraints it lost: a real session's
 * pasted rule book gave 22 findings for one compaction when each constraint had its own.
 */

const FAIL = 'fixtures/diagnostics/CONSTRAINT_LOST/fail.jsonl';
const dir = mkdtempSync(join(tmpdir(), 'palimpsest-constraints-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function lostIn(path: string) {
  const session = await loadSession(path);
  try {
    return (await validateSession(new SessionInspector(session))).filter((d) => d.rule === 'CONSTRAINT_LOST');
  } finally {
    await session.dispose();
  }
}

describe('CONSTRAINT_LOST', () => {
  it('names the one constraint a compaction lost', async () => {
    const [d, ...rest] = await lostIn(FAIL);
    expect(rest).toEqual([]);
    expect(d?.message).toContain('which said "Find out why and fix it; do not change the CSV column order."');
  });

  it('gives one finding for five lost constraints, the first three quoted and the seqs of their prompts', async () => {
    const five =
      'Never touch the lock file. Do not rename the job. Always run the tests twice. Only edit src/import.ts. Avoid new dependencies.';
    const path = join(dir, 'five.jsonl');
    writeFileSync(
      path,
      readFileSync(FAIL, 'utf8').replace(
        'The nightly import job fails on CI since yesterday. Find out why and fix it; do not change the CSV column order.',
        five,
      ),
    );
    const found = await lostIn(path);
    expect(found).toHaveLength(1);
    const [d] = found;
    expect(d?.message).toMatch(/replaced prompts holding 5 constraints that neither the summary nor the items it kept say any more/);
    expect(d?.message).toContain(
      '"Never touch the lock file." (seq 3), "Do not rename the job." (seq 3), "Always run the tests twice." (seq 3) and 2 more',
    );
    expect(d?.seqs).toEqual([19, 3]);
  });
});
