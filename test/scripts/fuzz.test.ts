import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decompress } from 'fzstd';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without type declarations
import * as runMod from '../../scripts/fuzz/run.mjs';
// @ts-expect-error: a plain .mjs script without type declarations
import * as mutateMod from '../../scripts/fuzz/mutate.mjs';
// @ts-expect-error: a plain .mjs script without type declarations
import * as rngMod from '../../scripts/fuzz/rng.mjs';
// @ts-expect-error: a plain .mjs script without type declarations
import * as zstdMod from '../../scripts/fuzz/zstd.mjs';

interface RunResult {
  code: number | null;
  signal: string | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  ms: number;
}
const { verdict, treeDigest } = runMod as {
  verdict(r: RunResult): { kind: string; detail: string } | null;
  treeDigest(dir: string): string;
};
const { mutate } = mutateMod as {
  mutate(files: Map<string, Buffer>, main: string, r: unknown): { files: Map<string, Buffer>; recipe: string };
};
const { rng } = rngMod as { rng(...key: (string | number)[]): unknown };
const { rawFrames } = zstdMod as { rawFrames(data: Buffer, frames: number): Buffer };

const ok: RunResult = { code: 0, signal: null, timedOut: false, stdout: '{}', stderr: '', ms: 10 };
const dir = mkdtempSync(join(tmpdir(), 'palimpsest-fuzz-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the fuzz run judges a run', () => {
  it('passes exit codes 0, 1 and 2 with clean output', () => {
    for (const code of [0, 1, 2]) expect(verdict({ ...ok, code, stderr: 'palimpsest inspect: x.jsonl: empty file' })).toBeNull();
  });

  it('fails a signal, another exit code, a timeout, an internal error, a stack overflow and a stack trace', () => {
    expect(verdict({ ...ok, code: null, signal: 'SIGSEGV' })?.kind).toBe('crash');
    expect(verdict({ ...ok, code: 134 })?.kind).toBe('crash');
    expect(verdict({ ...ok, timedOut: true, code: null, ms: 20_000 })?.kind).toBe('hang');
    expect(
      verdict({ ...ok, code: 2, stderr: 'palimpsest: internal error: TypeError: x is not a function\n    at f (file:///dist/cli.js:1:2)' })
        ?.kind,
    ).toBe('internal error');
    expect(verdict({ ...ok, code: 2, stderr: 'RangeError: Maximum call stack size exceeded' })?.kind).toBe('stack overflow');
    expect(verdict({ ...ok, code: 1, stderr: 'warning\n    at Object.<anonymous> (/x/dist/cli.js:10:5)' })?.kind).toBe('stack trace');
  });

  it('does not take a stack trace inside session text (a JSON string) for one', () => {
    const stdout = JSON.stringify({ text: 'Error: boom\n    at f (/app/x.js:1:2)' }, null, 2);
    expect(verdict({ ...ok, stdout })).toBeNull();
  });
});

describe('the fuzz run makes the same mutant from the same seed', () => {
  const files = new Map([
    [
      's.jsonl',
      Buffer.from('{"type":"user","id":"a","n":1,"content":[{"type":"text","text":"hi"}]}\n{"type":"assistant","id":"b","n":2}\n'),
    ],
  ]);
  it('same seed and number, same bytes and recipe; another number, another mutant', () => {
    const a = mutate(files, 's.jsonl', rng(7, 3));
    const b = mutate(files, 's.jsonl', rng(7, 3));
    expect(b.recipe).toBe(a.recipe);
    expect(b.files.get('s.jsonl')?.equals(a.files.get('s.jsonl') as Buffer)).toBe(true);
    const recipes = new Set(Array.from({ length: 20 }, (_, i) => mutate(files, 's.jsonl', rng(7, i)).recipe));
    expect(recipes.size).toBeGreaterThan(10);
  });
});

describe('the fuzz run stores mutated zstd logs as raw frames', () => {
  it('decompresses to the same bytes, in one frame or several', () => {
    const text = Buffer.from(Array.from({ length: 5000 }, (_, i) => `{"i":${i}}\n`).join(''));
    for (const n of [1, 3]) expect(Buffer.from(decompress(rawFrames(text, n))).equals(text)).toBe(true);
    const big = Buffer.alloc(300_000, 0x61); // over one 128 KiB block
    expect(Buffer.from(decompress(rawFrames(big, 1))).equals(big)).toBe(true);
  });
});

describe('the fuzz run sees a write to the input', () => {
  it('changes the digest when a file is rewritten with the same bytes', () => {
    const f = join(dir, 'a.jsonl');
    writeFileSync(f, '{"a":1}\n');
    utimesSync(f, 1_000, 1_000);
    const before = treeDigest(dir);
    expect(treeDigest(dir)).toBe(before);
    writeFileSync(f, '{"a":1}\n');
    expect(treeDigest(dir)).not.toBe(before);
  });
});
