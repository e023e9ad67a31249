import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../../src/main/reader';
import { describeIoError } from '../../../src/main/reader/io';

type Seen =
  [text: string, lineNo: number, offset: number, terminated: boolean] | [long: 'LONG', lineNo: number, offset: number, length: number];

function splitter(maxLineBytes?: number): { s: LineSplitter; seen: Seen[] } {
  const seen: Seen[] = [];
  const s = new LineSplitter(
    (buf, start, end, lineNo, offset, terminated) => seen.push([buf.toString('latin1', start, end), lineNo, offset, terminated]),
    { maxLineBytes, onLongLine: (lineNo, offset, length) => seen.push(['LONG', lineNo, offset, length]) },
  );
  return { s, seen };
}

const b = (s: string): Buffer => Buffer.from(s, 'latin1');

describe('LineSplitter', () => {
  it('hands over lines with 1-based numbers and byte offsets, CR left in place', () => {
    const { s, seen } = splitter();
    s.push(b('ab\n\ncd\r\nef'));
    s.end();
    expect(seen).toEqual([
      ['ab', 1, 0, true],
      ['', 2, 3, true],
      ['cd\r', 3, 4, true],
      ['ef', 4, 8, false],
    ]);
    expect(s.bytes).toBe(10);
    expect(s.currentLine).toBe(5);
  });

  it('joins a line that spans chunks, including a plain Uint8Array chunk', () => {
    const { s, seen } = splitter();
    s.push(b('a'));
    s.push(new Uint8Array([0x62, 0x63]));
    s.push(b('d\ne'));
    s.push(b('\n'));
    s.end();
    expect(seen).toEqual([
      ['abcd', 1, 0, true],
      ['e', 2, 5, true],
    ]);
  });

  it('copies what it keeps, so the caller may reuse its read buffer', () => {
    const { s, seen } = splitter();
    const buf = b('xy\nab');
    s.push(buf);
    buf.write('ZZ\nZZ', 'latin1');
    s.push(b('c\n'));
    expect(seen).toEqual([
      ['xy', 1, 0, true],
      ['abc', 2, 3, true],
    ]);
  });

  it('reports a line over maxLineBytes once with its full length, without keeping it', () => {
    const { s, seen } = splitter(4);
    s.push(b('1234\n12'));
    s.push(b('34'));
    s.push(b('5678'));
    s.push(b('9\nok\n123456'));
    s.end();
    expect(seen).toEqual([
      ['1234', 1, 0, true],
      ['LONG', 2, 5, 9],
      ['ok', 3, 15, true],
      ['LONG', 4, 18, 6],
    ]);
  });

  it('reports an over-long line inside one chunk the same way', () => {
    const { s, seen } = splitter(3);
    s.push(b('abcd\nabc\n'));
    expect(seen).toEqual([
      ['LONG', 1, 0, 4],
      ['abc', 2, 5, true],
    ]);
  });

  it('never throws: empty pushes, pushes after end and a second end are ignored', () => {
    const { s, seen } = splitter();
    s.push(new Uint8Array(0));
    s.end();
    s.end();
    s.push(b('late\n'));
    expect(seen).toEqual([]);
    expect(s.bytes).toBe(0);
  });

  it('falls back to the default limit for a nonsense maxLineBytes', () => {
    const { s, seen } = splitter(Number.NaN);
    s.push(b('abc\n'));
    expect(seen).toEqual([['abc', 1, 0, true]]);
  });

  it('calls a receiver object as it calls callbacks, its own longLine instead of onLongLine', () => {
    const seen: Seen[] = [];
    const receiver = {
      line(buf: Buffer, start: number, end: number, lineNo: number, offset: number, terminated: boolean): void {
        seen.push([buf.toString('latin1', start, end), lineNo, offset, terminated]);
      },
      longLine(lineNo: number, offset: number, length: number): void {
        seen.push(['LONG', lineNo, offset, length]);
      },
    };
    const ignored: number[] = [];
    const s = new LineSplitter(receiver, { maxLineBytes: 4, onLongLine: (n) => ignored.push(n) });
    s.push(b('1234\n12'));
    s.push(b('345\nok\nlast'));
    s.end();
    const { s: c, seen: byCallbacks } = splitter(4);
    c.push(b('1234\n12'));
    c.push(b('345\nok\nlast'));
    c.end();
    expect(seen).toEqual([
      ['1234', 1, 0, true],
      ['LONG', 2, 5, 5],
      ['ok', 3, 11, true],
      ['last', 4, 14, false],
    ]);
    expect(seen).toEqual(byCallbacks);
    expect(ignored).toEqual([]);
  });
});

describe('describeIoError', () => {
  it('says what went wrong in words', () => {
    const err = (code: string): Error => Object.assign(new Error(`${code}: x`), { code });
    expect(describeIoError('/a', err('EACCES'))).toBe('The file /a cannot be read: permission denied.');
    expect(describeIoError('/a', err('ENOENT'))).toBe('The file /a does not exist.');
    expect(describeIoError('/a', err('EISDIR'))).toBe('/a is a directory, not a file.');
    expect(describeIoError('/a', err('EIO'))).toBe('The file /a could not be read: EIO: x.');
  });
});
