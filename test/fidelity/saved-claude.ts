import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { type RequestComparison, compareLog } from '../../src/main/fidelity/compare';
import { type CapturedRequest, bodyJson, readCaptured } from '../../src/main/mock/record';

/*
 * The saved real Claude Code runs (fixtures/fidelity/logs/claude-code-<version>/<scenario>), compared
 * with their capture as the fidelity suite does — optionally with a difference planted in the wire,
 * to show that a comparison which says "unknown" still catches a real one.
 */

const LOGS = 'fixtures/fidelity/logs';

export type WireBody = { messages: { role: string; content: unknown }[] };

export async function compareSaved(
  version: string,
  scenario: string,
  edit?: (c: CapturedRequest) => CapturedRequest,
): Promise<RequestComparison[]> {
  const dir = join(LOGS, `claude-code-${version}`, scenario);
  const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { mainLog: string };
  const captured = readCaptured(join(dir, 'captured.jsonl')).requests;
  const c = await compareLog({
    client: 'claude-code',
    version,
    scenario,
    covers: [],
    runProblems: [],
    mainLog: join(dir, run.mainLog),
    captured: edit ? captured.map(edit) : captured,
  });
  expect(c.error).toBeNull();
  return [...c.requests];
}

/** The capture with the bodies `which` picks changed by `f` (the other requests as recorded). */
export function plantWhere(
  which: (body: WireBody, c: CapturedRequest) => boolean,
  f: (body: WireBody) => void,
): (c: CapturedRequest) => CapturedRequest {
  return (c) => {
    const body = bodyJson(c) as WireBody | null;
    if (!body || !which(body, c)) return c;
    f(body);
    const { decoded: _d, ...rest } = c;
    return { ...rest, body: JSON.stringify(body), bodyEncoding: 'utf8' };
  };
}

/** The capture with wire request `seq`'s body changed by `f`. */
export const plant = (seq: number, f: (body: WireBody) => void): ((c: CapturedRequest) => CapturedRequest) =>
  plantWhere((_b, c) => c.seq === seq, f);
