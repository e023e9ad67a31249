import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBuilt, type Run } from './run-built';

/*
 * What the built command says about files it cannot read: what it found (not "is empty" for a file
 * that has bytes), and under --json, on every exit 2, the JSON error on stdout.
 */

const RECOVERY = 'fixtures/dsh/examples/headless-agent/tests/snapshots/compaction-recovery/session.jsonl';

const run = (...args: string[]): Promise<Run> => runBuilt(args, 20_000);

interface ErrorJson {
  palimpsest: number;
  path?: string;
  error: string;
  code: string;
  diagnostics: { rule: string; line: number | null }[];
}

function errorJson(r: Run): ErrorJson {
  expect(r.code).toBe(2);
  const j = JSON.parse(r.stdout) as ErrorJson;
  expect(j.palimpsest).toBe(1);
  expect(typeof j.error).toBe('string');
  expect(typeof j.code).toBe('string');
  expect(Array.isArray(j.diagnostics)).toBe(true);
  return j;
}

let tmp = '';
const files = { binary: '', text: '', empty: '', blank: '' };
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'palimpsest-hostile-messages-'));
  files.binary = join(tmp, 'binary.jsonl');
  // A binary file: NUL bytes and invalid UTF-8, no line ends.
  await writeFile(files.binary, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00, 0x00, 0x0d, 0xff, 0xfe, 0x00, 0x01, 0x02]));
  files.text = join(tmp, 'text.jsonl');
  await writeFile(files.text, Array.from({ length: 15 }, (_, i) => `hello world ${i + 1}`).join('\n') + '\n');
  files.empty = join(tmp, 'empty.jsonl');
  await writeFile(files.empty, '');
  files.blank = join(tmp, 'blank.jsonl');
  await writeFile(files.blank, '\n  \n\t\n');
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('unreadable files say what was found', () => {
  for (const command of ['inspect', 'validate'] as const) {
    it(`${command}: a binary file is reported as binary data, not as empty`, async () => {
      const r = await run(command, files.binary);
      expect(r.code).toBe(2);
      expect(r.stderr).not.toContain('is empty');
      expect(r.stderr).toContain(`${files.binary} has 1 line, none of them readable. It looks like binary data`);
      expect(r.stderr).toContain('NUL bytes');
      const j = errorJson(await run(command, files.binary, '--json'));
      expect(j).toMatchObject({ code: 'UNREADABLE', path: files.binary });
      expect(j.error).toContain('binary data');
    });

    it(`${command}: a file of 15 non-JSON lines gives the count and why the first ones failed`, async () => {
      const r = await run(command, files.text);
      expect(r.code).toBe(2);
      expect(r.stderr).not.toContain('is empty');
      expect(r.stderr).toContain(`${files.text} has 15 lines, none of them readable. Line 1 is not valid JSON`);
      expect(r.stderr).toContain('Line 2 is not valid JSON');
      const j = errorJson(await run(command, files.text, '--json'));
      expect(j).toMatchObject({ code: 'UNREADABLE', path: files.text });
      expect(j.error).toContain('has 15 lines, none of them readable');
      expect(j.diagnostics[0]).toMatchObject({ rule: 'READ_INVALID_JSON', line: 1 });
    });

    it(`${command}: an empty file is empty, and blank lines are said to be blank`, async () => {
      const r = await run(command, files.empty);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`${files.empty} is empty`);
      expect(errorJson(await run(command, files.empty, '--json'))).toMatchObject({ code: 'UNREADABLE', path: files.empty });
      const b = await run(command, files.blank);
      expect(b.stderr).toContain(`${files.blank} has 3 lines, all blank`);
    });
  }
});

describe('--json prints the JSON error on every exit 2', () => {
  it('a missing file', async () => {
    const missing = join(tmp, 'nope.jsonl');
    for (const command of ['inspect', 'validate', 'view', 'events', 'tokens']) {
      const args = command === 'view' ? [command, missing, '--request', '0', '--json'] : [command, missing, '--json'];
      expect(errorJson(await run(...args)), command).toMatchObject({ code: 'UNREADABLE', path: missing });
    }
  });

  it('bad usage: an unknown option, a missing argument, a request out of range, an unknown command', async () => {
    expect(errorJson(await run('inspect', RECOVERY, '--json', '--nope'))).toMatchObject({ code: 'USAGE' });
    expect(errorJson(await run('validate', '--json'))).toMatchObject({ code: 'USAGE' });
    expect(errorJson(await run('view', RECOVERY, '--json'))).toMatchObject({ code: 'USAGE' });
    const out = errorJson(await run('view', RECOVERY, '--request', '999', '--json'));
    expect(out).toMatchObject({ code: 'USAGE' });
    expect(out.error).toContain('no request 999');
    expect(errorJson(await run('frobnicate', '--json'))).toMatchObject({ code: 'USAGE' });
    expect(errorJson(await run('ls', '--json', '--harness', 'nope'))).toMatchObject({ code: 'USAGE' });
  });

  it('a directory with no session keeps its listing and carries the error', async () => {
    const dir = join(tmp, 'nothing');
    await import('node:fs/promises').then((fs) => fs.mkdir(dir, { recursive: true }));
    for (const command of ['inspect', 'validate']) {
      const j = errorJson(await run(command, dir, '--json')) as ErrorJson & { sessions: unknown[] };
      expect(j).toMatchObject({ code: 'NO_SESSIONS', path: dir, sessions: [] });
    }
  });
});
