import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compareRecorded } from '../../src/main/fidelity/recorded';

const dir = mkdtempSync(join(tmpdir(), 'palimpsest-recorded-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the recorded comparison', () => {
  it('reports a log it cannot load as the run error instead of throwing', async () => {
    // A run whose turns all failed left OpenCode's storage folder without a session in it.
    const r = await compareRecorded(dir, [], [join(dir, 'capture-1.jsonl')], 'openai-chat');
    expect(r.error).toMatch(/^Palimpsest could not load the log: /);
    expect(r.requests).toEqual([]);
  });
});
