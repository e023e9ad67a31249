import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BAD, IdTable, KeyCursor, readString, skipNested, skipString, walkBackward } from '../../../src/main/discovery/json-bytes';

const b = (s: string): Buffer => Buffer.from(s, 'utf8');

describe('skipString / skipNested', () => {
  it('ends a string at the first quote after an even number of backslashes', () => {
    const buf = b('"a\\"b\\\\"x');
    expect(skipString(buf, 0, buf.length)).toBe(8);
    const c = b('"abc');
    expect(skipString(c, 0, c.length)).toBe(-1);
  });

  it('skips nested values whose strings hold brackets and escaped quotes', () => {
    const buf = b('{"a":["}",{"b":"\\"]"}],"c":1}tail');
    expect(skipNested(buf, 0, buf.length)).toBe(buf.length - 4);
  });
});

describe('KeyCursor and walkBackward agree with JSON.parse', () => {
  // Objects with scalar and nested values, keys and strings with quotes, backslashes, brackets and
  // non-ASCII characters, serialised compactly or with spaces.
  const scalar = fc.oneof(
    fc.string({ unit: 'grapheme' }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
  );
  const value = fc.letrec((tie) => ({
    v: fc.oneof({ depthSize: 'small' }, scalar, fc.array(tie('v'), { maxLength: 3 }), fc.dictionary(fc.string(), tie('v'), { maxKeys: 3 })),
  })).v;
  const object = fc.dictionary(fc.string({ unit: 'grapheme' }), value, { minKeys: 0, maxKeys: 8 });

  it('forwards: every key in order, each value skipped to its exact end', () => {
    fc.assert(
      fc.property(object, fc.boolean(), (o0, spaced) => {
        const o = JSON.parse(JSON.stringify(o0)) as Record<string, unknown>; // as JSON has it (-0 is 0)
        const text = spaced ? JSON.stringify(o, null, 1).replace(/\n/g, ' ') : JSON.stringify(o);
        const buf = b(text);
        const c = new KeyCursor().open(buf, 0, buf.length);
        const keys: string[] = [];
        const values: unknown[] = [];
        while (c.next()) {
          const e = c.skip();
          expect(e).toBeGreaterThan(0);
          keys.push(JSON.parse(buf.toString('utf8', c.ks - 1, c.ke + 1)) as string);
          values.push(JSON.parse(buf.toString('utf8', c.vs, e)));
        }
        expect(c.bad).toBe(false);
        expect(keys).toEqual(Object.keys(o));
        expect(values).toEqual(Object.values(o));
      }),
      { numRuns: 300 },
    );
  });

  it('backwards: the trailing scalar keys, stopping at the last nested value', () => {
    fc.assert(
      fc.property(object, (o0) => {
        const o = JSON.parse(JSON.stringify(o0)) as Record<string, unknown>;
        const buf = b(JSON.stringify(o));
        const seen: [string, unknown][] = [];
        const r = walkBackward(buf, 0, buf.length - 1, (ks, ke, vs, ve) => {
          seen.push([JSON.parse(buf.toString('utf8', ks - 1, ke + 1)) as string, JSON.parse(buf.toString('utf8', vs, ve))]);
          return true;
        });
        expect(r).not.toBe(BAD);
        const entries = Object.entries(o);
        const trailing: [string, unknown][] = [];
        for (let i = entries.length - 1; i >= 0; i--) {
          const [k, v] = entries[i] as [string, unknown];
          if (typeof v === 'object' && v !== null) break;
          trailing.push([k, v]);
        }
        expect(seen).toEqual(trailing);
        expect(r === -1).toBe(trailing.length === entries.length);
      }),
      { numRuns: 300 },
    );
  });

  it('readString decodes escapes and UTF-8', () => {
    const buf = b('"\\u00e9t\\u00e9 \\"ok\\" ü"');
    expect(readString(buf, 0, buf.length)).toBe('été "ok" ü');
  });
});

describe('IdTable', () => {
  it('numbers ids in insertion order, finds them by bytes, refuses duplicates, survives growth and reset', () => {
    const t = new IdTable();
    const ids = Array.from({ length: 100_000 }, (_, i) => `${i.toString(16).padStart(8, '0')}-241a-462a-8d15-5122611a9569`);
    ids.forEach((id, i) => {
      const buf = b(`x"${id}"`);
      expect(t.addNew(buf, 2, 2 + id.length)).toBe(i);
    });
    const again = b(ids[777] as string);
    expect(t.addNew(again, 0, again.length)).toBe(-1);
    expect(t.find(again, 0, again.length)).toBe(777);
    expect(t.text(777)).toBe(ids[777]);
    const short = b('u1');
    expect(t.find(short, 0, 2)).toBe(-1);
    t.reset();
    expect(t.find(again, 0, again.length)).toBe(-1);
    expect(t.addNew(short, 0, 2)).toBe(0);
  });

  it('finds an id the same by findRecent, whether it was added last or earlier, and ids of every length', () => {
    const t = new IdTable();
    const ids = [
      '',
      'a',
      'u1',
      'abcdefg',
      'abcdefgh',
      'abcdefghi',
      '0123456789abcdef',
      '0123456789abcdef0',
      'é-ü',
      '5e551011-0000-4000-8000-000000000001',
    ];
    ids.forEach((id, i) => expect(t.addNew(b(id), 0, b(id).length)).toBe(i));
    ids.forEach((id, i) => {
      expect(t.find(b(id), 0, b(id).length)).toBe(i);
      expect(t.findRecent(b(id), 0, b(id).length)).toBe(i);
    });
    expect(t.findRecent(b('abcdefgj'), 0, 8)).toBe(-1);
    expect(t.addNew(b('abcdefgh'), 0, 8)).toBe(-1);
  });
});
