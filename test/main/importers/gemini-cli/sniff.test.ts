import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { geminiCliImporter } from '../../../../src/main/importers/gemini-cli';

/** Every plain JSONL session under fixtures/ that is not Gemini CLI's, with its first 16 records. */
function otherSessions(dir: string, out: [string, Record<string, unknown>[]][] = []): [string, Record<string, unknown>[]][] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (!name.startsWith('gemini-cli') && name !== 'bad-input' && name !== 'node_modules') otherSessions(p, out);
      continue;
    }
    if (!name.endsWith('.jsonl')) continue;
    const first: Record<string, unknown>[] = [];
    for (const line of readFileSync(p, 'utf8').split('\n')) {
      if (first.length >= 16) break;
      try {
        const v: unknown = JSON.parse(line);
        if (typeof v === 'object' && v !== null && !Array.isArray(v)) first.push(v as Record<string, unknown>);
      } catch {
        // not a record
      }
    }
    out.push([p, first]);
  }
  return out;
}

describe('Gemini CLI sniff', () => {
  const others = otherSessions('fixtures');

  it('has other formats to try', () => {
    expect(others.length).toBeGreaterThan(50);
  });

  it("claims no other format's fixture", () => {
    const claimed = others.filter(([p, first]) => geminiCliImporter.sniff(first, p) >= 0.5).map(([p]) => p);
    expect(claimed).toEqual([]);
  });

  it('claims a file of messages without a metadata line once a gemini message is among them', () => {
    const u = { id: 'u1', timestamp: '2026-01-01T00:00:00Z', type: 'user', content: [{ text: 'hi' }] };
    const g = { id: 'g1', timestamp: '2026-01-01T00:00:01Z', type: 'gemini', content: 'hello', model: 'gemini-2.5-pro' };
    expect(geminiCliImporter.sniff([u], '/x/chats/a.jsonl')).toBeLessThan(0.5);
    expect(geminiCliImporter.sniff([u, g], '/x/chats/a.jsonl')).toBeGreaterThanOrEqual(0.9);
    expect(geminiCliImporter.sniff([{ type: 'user', sessionId: 's', uuid: 'x', message: {} }], '/x.jsonl')).toBe(0);
    expect(geminiCliImporter.sniff([], '/x.jsonl')).toBe(0);
  });
});
