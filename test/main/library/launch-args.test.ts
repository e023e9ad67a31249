import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shellArgs } from '../../../src/main/library/launch-args';

describe("the desktop app's command line", () => {
  it('takes session paths and --capture in both spellings, and leaves Chromium switches alone', () => {
    expect(shellArgs(['s.jsonl', '--capture', 'c1.jsonl', '--capture=c2.jsonl', '--no-sandbox', '--enable-logging=stderr', ''])).toEqual({
      paths: [resolve('s.jsonl')],
      captures: [resolve('c1.jsonl'), resolve('c2.jsonl')],
    });
  });

  it('never takes a switch for a path, nor an empty capture for a file', () => {
    expect(shellArgs(['--capture=', '--capture'])).toEqual({ paths: [], captures: [] });
  });
});
