import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compileRegex, describeMatcher, evaluate, Haystack, Matcher } from '../../../src/shared/eval/matchers';
import { MAX_REGEX_INPUT, REGEX_OVERLAP, regexHazard, regexTest, windows } from '../../../src/shared/eval/regex-guard';

const parse = (v: unknown) => Matcher.parse(v);
const on = (m: unknown, ...texts: string[]) => evaluate(parse(m), new Haystack(texts));

describe('matchers', () => {
  it('matches verbatim text with runs of whitespace compared as one space', () => {
    expect(on('uses  JSONL', 'persistence uses\n   JSONL today').matched).toBe(true);
    expect(on('uses JSONL', 'persistence uses jsonl').matched).toBe(false);
    expect(on({ text: 'uses JSONL', ignoreCase: true }, 'persistence uses jsonl').matched).toBe(true);
  });

  it('reports the sites: every text a text or regex matcher is found in', () => {
    expect(on({ regex: 'tests? pass', flags: 'i' }, 'All tests PASS', 'nothing', 'one test passes').sites).toEqual([0, 2]);
  });

  it('anyOf takes the union of the parts that matched; allOf prefers texts where every part matches', () => {
    expect(on({ anyOf: ['alpha', 'beta'] }, 'beta', 'x', 'alpha').sites).toEqual([0, 2]);
    expect(on({ allOf: ['alpha', 'beta'] }, 'alpha', 'alpha beta', 'beta').sites).toEqual([1]);
    const spread = on({ allOf: ['alpha', 'beta'] }, 'alpha', 'x', 'beta');
    expect(spread).toEqual({ matched: true, sites: [0, 2] });
    expect(on({ allOf: ['alpha', 'gamma'] }, 'alpha', 'beta')).toEqual({ matched: false, sites: [] });
  });

  it('accepts a bare string as a text matcher and describes matchers for reports', () => {
    expect(parse('COMPACTION RECOVERED')).toEqual({ text: 'COMPACTION RECOVERED' });
    expect(describeMatcher(parse({ anyOf: ['a b', { regex: 'x+', flags: 'i' }] }))).toBe('anyOf(text "a b", /x+/i)');
  });

  it('rejects empty, unknown, stateful-flag and invalid matchers with the field that is wrong', () => {
    const S = z.object({ match: Matcher });
    const issue = (v: unknown) => {
      const r = S.safeParse({ match: v });
      return r.success ? null : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    };
    expect(issue('')).toMatch(/^match: an empty text matches everything/);
    expect(issue({ regex: 'a', flags: 'g' })).toMatch(/^match\.regex: flags "g" are not allowed/);
    expect(issue({ regex: '(' })).toMatch(/^match\.regex: not a valid regular expression/);
    expect(issue({ pattern: 'x' })).toMatch(/^match: a matcher is a text, or an object/);
    expect(issue({ allOf: [] })).toMatch(/match/);
    expect(issue({ anyOf: [{ regex: '(a+)+' }] })).toMatch(/^match\.anyOf\.0\.regex: the group at character 1 repeats/);
  });
});

describe('regex guard', () => {
  it('refuses nested unbounded repetition and repeated alternatives', () => {
    for (const p of ['(a+)+', '(\\w+\\s?)*', '(.*){2,50}', '(?:x*y)+$', '(a|aa)+', 'pre((b|c)+)*'])
      expect(regexHazard(p), p).not.toBeNull();
  });

  it('lets ordinary patterns through, escapes and character classes included', () => {
    for (const p of [
      'a+b+',
      '(?:foo|bar)',
      '\\(a+\\)+',
      '[(+]+x',
      '(ab){2}',
      '(a+){1,3}',
      'load_transcript\\b',
      '(?:no|not)[^\\n]{0,40}silent(?:ly)?[ -]truncat',
      '(?<year>\\d{4})-\\d+',
    ]) {
      expect(regexHazard(p), p).toBeNull();
    }
  });

  it('compileRegex returns a failure value, never throws', () => {
    expect(compileRegex('a', 'ii')).toMatchObject({ ok: false });
    expect(compileRegex('[', '')).toMatchObject({ ok: false });
    expect(compileRegex('a.b', 's')).toMatchObject({ ok: true });
  });

  it('scans long texts in overlapping windows of bounded length', () => {
    const text = 'x'.repeat(10_000);
    const ws = windows(text);
    expect(ws.every((w) => w.length <= MAX_REGEX_INPUT)).toBe(true);
    expect(ws.reduce((n, w) => n + w.length, 0)).toBeGreaterThanOrEqual(text.length);
    // A short match straddling a window boundary is still found thanks to the overlap.
    const boundary = MAX_REGEX_INPUT - REGEX_OVERLAP + REGEX_OVERLAP / 2;
    const planted = `${'x'.repeat(boundary - 5)}NEEDLE-42${'x'.repeat(5_000)}`;
    expect(regexTest(/NEEDLE-\d+/, planted)).toBe(true);
    expect(regexTest(/NEEDLE-\d+/, `${'y'.repeat(50_000)}NEEDLE-7`)).toBe(true);
  });

  it('keeps a polynomial-backtracking pattern fast on a long hostile input', () => {
    const t0 = performance.now();
    expect(regexTest(/\s*\w+\s*=\s*\w+\s*;$/, `${'a '.repeat(100_000)}!`)).toBe(false);
    expect(performance.now() - t0).toBeLessThan(5_000);
  });
});
