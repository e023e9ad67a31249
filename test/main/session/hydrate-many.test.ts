import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { blockIsElided } from '../../../src/shared/model/content';
import { loadSession } from '../../../src/main/session/load';

// Lines of every size: short ones (kept whole), long ones (elided in memory), ones far apart (past
// the gap readMany bridges) and one longer than the span it reads at once.
const dir = mkdtempSync(join(tmpdir(), 'palimpsest-hydrate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sessionFile(name: string): string {
  const lines: string[] = [JSON.stringify({ kind: 'session', format: 'palimpsest', version: 1, id: name })];
  for (let i = 0; i < 300; i++) {
    const size = i === 150 ? 9_000_000 : i % 37 === 0 ? 100_000 : i % 3 === 0 ? 2_000 : 40;
    const text = `item ${i} é ${'abcdefghij'.repeat(Math.ceil(size / 10))}`.slice(0, size);
    lines.push(
      JSON.stringify({ kind: 'item', item: { id: `i${i}`, role: i % 2 ? 'user' : 'assistant', blocks: [{ type: 'text', text }] } }),
    );
    if (i % 50 === 0) lines.push(JSON.stringify({ kind: 'request', id: `r${i}` }));
  }
  const path = join(dir, `${name}.jsonl`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/** A fixed shuffle, with repeats. */
function scrambled(n: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((i * 7_919) % n);
  return [...out, 3, 3, 0, n - 1];
}

describe('LoadedSession.hydrateMany', () => {
  it('gives what hydrate gives for each seq, in the order asked, repeats included', async () => {
    const session = await loadSession(sessionFile('order'));
    try {
      const seqs = scrambled(session.events.length);
      const many = await session.hydrateMany(seqs);
      const one = await Promise.all(seqs.map((s) => session.hydrate(s)));
      expect(many).toEqual(one);
      // Long texts came back whole.
      const elided = [...session.events].filter((e) => e.kind === 'item' && e.item.blocks.some(blockIsElided)).map((e) => e.seq);
      expect(elided.length).toBeGreaterThan(100);
      for (const seq of elided) {
        const e = many[seqs.indexOf(seq)];
        expect(e?.kind === 'item' && !e.item.blocks.some(blockIsElided)).toBe(true);
      }
      expect(await session.hydrateMany([])).toEqual([]);
      await expect(session.hydrateMany([0, session.events.length])).rejects.toThrow(RangeError);
    } finally {
      await session.dispose();
    }
  });

  it('falls back to the event kept in memory for lines the file no longer has, like hydrate', async () => {
    const path = sessionFile('cut');
    // The array log: its kept event is the very object the fallback must hand back.
    const session = await loadSession(path, { compactLog: false });
    try {
      const last = session.loc(session.events.length - 1);
      expect(last).not.toBeNull();
      truncateSync(path, (last?.offset ?? 0) - 5_000);
      const seqs = scrambled(session.events.length);
      const many = await session.hydrateMany(seqs);
      expect(many).toEqual(await Promise.all(seqs.map((s) => session.hydrate(s))));
      expect(many[seqs.indexOf(session.events.length - 1)]).toBe(session.events.at(session.events.length - 1));
    } finally {
      await session.dispose();
    }
  });
});
