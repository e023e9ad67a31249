import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UNRECORDED_CONTEXT } from '../../../../src/main/dialects/claude-unrecorded';
import { loadSession } from '../../../../src/main/session/load';
import { SessionInspector } from '../../../../src/main/session/inspector';

/*
 * A Claude Code log without `api-request` records does not hold the context block Claude Code adds
 * to the first prompt, nor how it renders attachments: every view names that among its unknowns.
 * One with those records holds the messages as sent, and names nothing.
 */

async function unknownsOf(path: string): Promise<string[][]> {
  const session = await loadSession(path);
  try {
    const ins = new SessionInspector(session);
    const n = ins.replay().requests.length;
    const out: string[][] = [];
    for (let i = 0; i < n; i++) out.push([...((await ins.fullView(i))?.unknowns ?? [])]);
    return out;
  } finally {
    await session.dispose();
  }
}

function mainLog(run: string): string {
  const projects = join(run, 'projects');
  const folder = readdirSync(projects)[0] ?? '';
  return join(projects, folder, readdirSync(join(projects, folder)).find((f) => f.endsWith('.jsonl')) ?? '');
}

describe('messages Claude Code adds that the log does not record', () => {
  it('are named in every view of a log without api-request records (a real 2.1.39 session)', async () => {
    const all = await unknownsOf('fixtures/claude-code/short.jsonl');
    expect(all.length).toBeGreaterThan(0);
    for (const u of all) expect(u).toContain(`messages: ${UNRECORDED_CONTEXT}`);
  });

  it('are not named where the api-request records hold the messages as sent (2.1.332)', async () => {
    const all = await unknownsOf(mainLog('fixtures/fidelity/logs/claude-code-2.1.332/tools-resume'));
    expect(all.length).toBe(5);
    for (const u of all) expect(u.some((x) => x.startsWith('messages:'))).toBe(false);
  });
});
