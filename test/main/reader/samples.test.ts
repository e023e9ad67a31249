import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readAll, readLineAt, SAMPLES } from './helpers';

const codexDir = join(SAMPLES, 'codex');
const codex = readdirSync(codexDir).filter((f) => f.endsWith('.jsonl'));

describe('real Codex rollouts', () => {
  it('has samples to read', () => {
    expect(codex.length).toBeGreaterThan(0);
  });

  for (const f of codex) {
    it(`${f} reads with no error diagnostics`, async () => {
      const path = join(codexDir, f);
      const r = await readAll(path);
      expect(r.diags.filter((d) => d.severity === 'error')).toEqual([]);
      expect(r.stats.records).toBeGreaterThan(0);
      expect(r.stats.records).toBe(r.lines.length);
      for (const l of r.lines) expect(typeof l.value['type']).toBe('string');
      const last = r.lines[r.lines.length - 1];
      if (last) expect(await readLineAt(path, last.offset, last.length)).toEqual(last.value);
    });
  }
});
