import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { appendLine } from '../../../src/main/files/append-line';

let dir = '';
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('appendLine', () => {
  it('keeps concurrent appends of lines larger than one write whole and in call order', async () => {
    dir = await mkdtemp(join(tmpdir(), 'pal-append-'));
    const file = join(dir, 'sub', 'runs.jsonl');
    // 1.5 MiB lines: Node writes them in 512 KiB chunks, which interleave without the queue.
    const lines = ['a', 'b', 'c', 'd'].map((ch) => JSON.stringify({ id: ch, body: ch.repeat(1_500_000) }));
    await Promise.all(lines.map((l) => appendLine(file, l)));
    const back = (await readFile(file, 'utf8')).split('\n').filter(Boolean);
    expect(back.map((l) => (JSON.parse(l) as { id: string }).id)).toEqual(['a', 'b', 'c', 'd']);
  });
});
