import { appendFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { awaitSessionChange } from '../../../src/main/follow/await-change';

describe('awaitSessionChange', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'palimpsest-await-'));
    file = join(dir, 's.jsonl');
    writeFileSync(file, '{"a":1}\n');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('answers false when nothing changes in time', async () => {
    expect(await awaitSessionChange([{ path: file, bytes: statSync(file).size }], 100)).toBe(false);
  });

  it('answers true once a whole line is appended, not while it is half written', async () => {
    const waiting = awaitSessionChange([{ path: file, bytes: statSync(file).size }], 5000);
    let settled = false;
    void waiting.then(() => (settled = true));
    appendFileSync(file, '{"b":');
    await new Promise((ok) => setTimeout(ok, 300));
    expect(settled).toBe(false);
    appendFileSync(file, '2}\n');
    expect(await waiting).toBe(true);
  });
});
