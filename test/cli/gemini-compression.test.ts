import { describe, expect, it } from 'vitest';
import { runBuilt } from './run-built';

/*
 * `view` shows a compression Gemini CLI 0.22.4 may have run without writing it to the file among
 * what is not known from the log, on the requests after the reply that reached its threshold only
 * (the saved real run whose wire shows the compression).
 */

const FILE =
  'fixtures/fidelity/logs/gemini-cli-0.22.4/auto-compact/tmp/62a4906b3a09d4f8c999308142e21bb1dbd7de5a126700e25d2163b254281889/chats/session-2026-12-02T21-26-f7c4ceb5.json';
const NAMED = 'Gemini CLI may have compressed the history before this request without writing it to the file';

describe('palimpsest view on a Gemini CLI 0.22.4 chat past its compression threshold', () => {
  it('lists the maybe-replaced history among the unknowns of the request after it, not before', async () => {
    const after = await runBuilt(['view', FILE, '--request', '3'], 120_000);
    expect(after.code).toBe(0);
    const unknowns = after.stdout.slice(after.stdout.indexOf('Not known from the log'));
    expect(unknowns).toContain(`messages: ${NAMED}`);
    expect(unknowns).toContain('reported 600,000 prompt tokens, at or over its automatic compression threshold of 524,288');
    const before = await runBuilt(['view', FILE, '--request', '2', '--json'], 120_000);
    expect(before.code).toBe(0);
    const j = JSON.parse(before.stdout) as { unknowns: string[] };
    expect(j.unknowns.length).toBeGreaterThan(0);
    expect(j.unknowns.some((u) => u.includes(NAMED))).toBe(false);
  });
});
