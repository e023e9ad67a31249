import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isJsonDocument, readJsonDocument } from '../../../src/main/reader/document';
import type { JsonLine } from '../../../src/main/reader/types';
import type { Diagnostic } from '../../../src/shared/model/diagnostic';

async function file(name: string, text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'palimpsest-doc-'));
  const p = join(dir, name);
  await writeFile(p, text);
  return p;
}

describe('a pretty-printed .json read as one document', () => {
  it('is told from JSONL by its name and its first line', async () => {
    expect(await isJsonDocument(await file('a.json', '{\n  "a": 1\n}\n'))).toBe(true);
    expect(await isJsonDocument(await file('b.json', '{"a":1}\n{"b":2}\n'))).toBe(false);
    expect(await isJsonDocument(await file('c.jsonl', '{\n  "a": 1\n}\n'))).toBe(false);
    expect(await isJsonDocument(join(tmpdir(), 'no-such-file.json'))).toBe(false);
  });

  it('hands on one record at line 1 spanning the file, and counts its lines', async () => {
    const text = '{\n  "a": [1, 2],\n  "b": "x"\n}\n';
    const lines: JsonLine[] = [];
    const ds: Diagnostic[] = [];
    const stats = await readJsonDocument(
      await file('a.json', text),
      (l) => lines.push(l),
      (d) => ds.push(d),
    );
    expect(ds).toEqual([]);
    expect(lines.map((l) => [l.line, l.offset, l.length, l.value])).toEqual([[1, 0, Buffer.byteLength(text), { a: [1, 2], b: 'x' }]]);
    expect(stats).toEqual({ bytes: text.length, lines: 4, records: 1, skipped: 0 });
  });

  it('reports a document that does not parse, or is not an object, at line 1 and hands on nothing', async () => {
    for (const [text, rule] of [
      ['{\n  "a": \n', 'READ_INVALID_JSON'],
      ['[\n1\n]\n', 'READ_NOT_OBJECT'],
    ] as const) {
      const ds: Diagnostic[] = [];
      const lines: JsonLine[] = [];
      const p = await file('bad.json', text);
      await readJsonDocument(
        p,
        (l) => lines.push(l),
        (d) => ds.push(d),
      );
      expect(lines).toEqual([]);
      expect(ds.map((d) => [d.rule, d.file, d.line])).toEqual([[rule, p, 1]]);
    }
  });
});
