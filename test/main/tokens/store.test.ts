import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ContentCountCache } from '../../../src/main/tokens/cache';
import { InlineCounter } from '../../../src/main/tokens/pool';
import { CountStore, STORE_FILE } from '../../../src/main/tokens/store';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function storePath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'palimpsest-store-'));
  dirs.push(dir);
  return join(dir, 'cache', STORE_FILE);
}

const key = (text: string): string => ContentCountCache.key('o200k_base', text);

describe('persistent token count store', () => {
  it('keeps counts between runs, through the content cache, and writes only when something was added', () => {
    const path = storePath();
    const first = new ContentCountCache(undefined, CountStore.open(path));
    expect(first.get(key('hello world'))).toBeUndefined();
    first.set(key('hello world'), 2, 0);
    first.set(key('x'.repeat(100)), 13, 4);
    first.store?.save();
    expect(first.store?.problems).toEqual([]);
    const bytes = readFileSync(path);

    const second = new ContentCountCache(undefined, CountStore.open(path));
    expect(second.get(key('hello world'))).toEqual({ tokens: 2, estimated: 0 });
    expect(second.get(key('x'.repeat(100)))).toEqual({ tokens: 13, estimated: 4 });
    expect(second.get(key('something else'))).toBeUndefined();
    // The encoding is part of the key.
    expect(second.get(ContentCountCache.key('cl100k_base', 'hello world'))).toBeUndefined();
    expect(second.store?.hits).toBe(2);
    second.store?.save();
    expect(readFileSync(path).equals(bytes)).toBe(true);
  });

  it('is bounded, keeping what was looked up or added last', () => {
    const path = storePath();
    const s = CountStore.open(path, 3);
    for (const t of ['a', 'b', 'c', 'd']) s.set(key(t), 1);
    s.get(key('b'));
    s.save();
    const again = CountStore.open(path, 3);
    expect(again.size).toBe(3);
    expect(['a', 'b', 'c', 'd'].map((t) => again.get(key(t)) !== undefined)).toEqual([false, true, true, true]);
  });

  it('writes through a temporary file and leaves none behind', () => {
    const path = storePath();
    const s = CountStore.open(path);
    s.set(key('a'), 1);
    s.save();
    expect(readdirSync(join(path, '..'))).toEqual([STORE_FILE]);
  });

  it('ignores a damaged, cut or foreign file, says so once, and replaces it', () => {
    const path = storePath();
    const good = CountStore.open(path);
    good.set(key('a'), 1);
    good.set(key('b'), 2);
    good.save();
    const bytes = readFileSync(path);
    const flipped = Buffer.from(bytes);
    flipped[flipped.length - 1] = (flipped[flipped.length - 1] as number) ^ 0xff;
    for (const [content, problem] of [
      [flipped, /is damaged; it is rebuilt/],
      [bytes.subarray(0, bytes.length - 5), /cut short; it is rebuilt/],
      [Buffer.from('{"not": "a store"}'), /not one this version writes/],
      [Buffer.alloc(0), /cut short/],
    ] as const) {
      writeFileSync(path, content);
      const s = CountStore.open(path);
      expect(s.size).toBe(0);
      expect(s.problems).toHaveLength(1);
      expect(s.problems[0]).toMatch(problem);
      expect(s.get(key('a'))).toBeUndefined();
      s.save();
      expect(s.problems).toHaveLength(1);
      expect(CountStore.open(path).problems).toEqual([]);
    }
  });

  it('reports a folder it cannot write, and never throws', () => {
    const dir = mkdtempSync(join(tmpdir(), 'palimpsest-store-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'file'), 'not a folder');
    const s = CountStore.open(join(dir, 'file', STORE_FILE));
    expect(s.problems).toHaveLength(1);
    s.set(key('a'), 1);
    expect(() => s.save()).not.toThrow();
    expect(s.problems.at(-1)).toMatch(/could not be written/);
  });

  it('gives the counts the counter gave, without a counter, on the second run', async () => {
    const path = storePath();
    const texts = ['export const x = 1;', 'Größe café 日本語 🚀 '.repeat(20)];
    const counted = await new InlineCounter().count('o200k_base', texts);
    const first = new ContentCountCache(undefined, CountStore.open(path));
    texts.forEach((t, i) => first.set(key(t), counted.tokens[i] as number, counted.estimated[i] as number));
    first.store?.save();
    const second = new ContentCountCache(undefined, CountStore.open(path));
    expect(texts.map((t) => second.get(key(t))?.tokens)).toEqual([...counted.tokens]);
  });
});
