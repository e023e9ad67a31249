import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareLog } from '../../src/main/fidelity/compare';
import { readCaptured } from '../../src/main/mock/record';

/*
 * A real 2.1.332 interactive run (fixtures/fidelity/races/): the client logs its records through a
 * queue, and here four attachments made while the first call was being built were written after
 * that call's api-request record. The call did not send them; the view of the request must not
 * hold them either.
 */

const DIR = 'fixtures/fidelity/races/claude-code-2.1.332-late-attachments';
type Line = { type?: string; timestamp?: string; attachment?: { type?: string } };

describe('attachments logged after the api-request of the call they missed (2.1.332)', () => {
  const lines = readFileSync(join(DIR, 'session.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Line);

  it('the log has them between the first api-request and its response, stamped before the api-request', () => {
    const request = lines.findIndex((l) => l.type === 'api-request');
    const response = lines.findIndex((l, i) => i > request && l.type === 'assistant');
    const late = lines.slice(request + 1, response).filter((l) => l.type === 'attachment');
    expect(late.map((l) => l.attachment?.type)).toEqual(['session_context', 'date', 'remote_session_change', 'prompt_snapshot']);
    for (const l of late) expect(String(l.timestamp) < String(lines[request]?.timestamp)).toBe(true);
  });

  it('every request the log knows is the one sent', async () => {
    const c = await compareLog({
      client: 'claude-code',
      version: '2.1.332',
      scenario: 'local-command-interactive',
      covers: [],
      runProblems: [],
      mainLog: join(DIR, 'session.jsonl'),
      captured: readCaptured(join(DIR, 'captured.jsonl')).requests,
    });
    expect(c.error).toBeNull();
    expect(c.requests.map((r) => `${r.label}: ${r.verdict}`)).toEqual([
      'turn1-tool: match',
      'turn1-final: match',
      'summarizer: not-in-log',
      'after-compact: match',
    ]);
  });
});
