import { describe, expect, it } from 'vitest';
import { RULES } from '../../../src/shared/redact/patterns';
import { OWN_PIECE, PatternError, ownPatterns, replaceInWindows } from '../../../src/shared/redact/own-patterns';
import { Redactor, marker } from '../../../src/shared/redact/redactor';

const WHERE = { place: 'test', field: 'text' };
const builtIn = (): Redactor => new Redactor({ builtIn: true, patterns: [] });

describe('redaction rules', () => {
  for (const r of RULES) {
    it(`${r.name}: redacts its example and leaves its near miss alone`, () => {
      const red = builtIn();
      const out = red.text(`before ${r.example} after`, WHERE);
      expect(out).toContain(marker(r.name));
      expect(red.counts.get(r.name)).toBe(1);
      expect(r.example).toContain(r.secret);
      expect(out).not.toContain(r.secret);
      expect(out.startsWith('before ')).toBe(true);
      expect(out.endsWith(' after')).toBe(true);
      const near = builtIn();
      expect(near.text(r.near, WHERE)).toBe(r.near);
      expect(near.count).toBe(0);
    });
  }

  it('names rules uniquely, and every rule is global and bounded', () => {
    expect(new Set(RULES.map((r) => r.name)).size).toBe(RULES.length);
    for (const r of RULES) {
      expect(r.regex.flags).toContain('g');
      // No unbounded repetition: every * and + would let a match attempt run to the end of the text.
      expect(r.regex.source.replace(/\\./g, '').replace(/\[[^\]]*\]/g, 'C')).not.toMatch(/[*+]/);
    }
  });

  it('keeps the name of an assignment and the rest of a home path', () => {
    const red = builtIn();
    expect(red.text('export OPENAI_API_KEY=sk-proj-Fake0OpenAI1Key2For3Tests4Only5abcdefGHIJKL', WHERE)).toBe(
      'export OPENAI_API_KEY=[REDACTED:openai-key]',
    );
    expect(red.text('DB_PASSWORD="hunter2hunter2"', WHERE)).toBe('DB_PASSWORD="[REDACTED:env-secret]"');
    expect(red.text('cd /home/alice/src && ls /Users/bob/x C:\\Users\\carol\\y', WHERE)).toBe(
      'cd /home/[REDACTED:home-path]/src && ls /Users/[REDACTED:home-path]/x C:\\Users\\[REDACTED:home-path]\\y',
    );
    expect(red.text('see https://example.com/home/index.html', WHERE)).toBe('see https://example.com/home/index.html');
  });

  it('redacts a PEM key written with \\n escapes inside JSON, and a truncated one', () => {
    const red = builtIn();
    const json = '{"key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADAN\\n-----END PRIVATE KEY-----\\n", "x": 1}';
    expect(red.text(json, WHERE)).toBe('{"key": "[REDACTED:pem-private-key]\\n", "x": 1}');
    expect(red.text('-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIFAKE', WHERE)).toBe('[REDACTED:pem-private-key]');
  });

  it('lists each redaction with its place and an excerpt that holds no secret', () => {
    const red = builtIn();
    red.text('token ghp_Fake0GitHub1Token2For3Tests4Only5abcd then mail jane@example.org', { place: 'item u1', field: 'text' });
    expect(red.listed.map((r) => [r.rule, r.place, r.field])).toEqual([
      ['github-token', 'item u1', 'text'],
      ['email', 'item u1', 'text'],
    ]);
    for (const r of red.listed) {
      expect(r.excerpt).toContain(marker(r.rule));
      expect(r.excerpt).not.toContain('ghp_Fake');
      expect(r.excerpt).not.toContain('jane@');
    }
  });

  it('does not count a marker the text already held', () => {
    const red = builtIn();
    expect(red.text('already [REDACTED:email] here', WHERE)).toBe('already [REDACTED:email] here');
    expect(red.count).toBe(0);
  });

  it('is off with no rule and no pattern', () => {
    const red = new Redactor({ builtIn: false, patterns: [] });
    expect(red.active).toBe(false);
    expect(red.text('jane@example.org', WHERE)).toBe('jane@example.org');
  });
});

describe('own patterns', () => {
  it('redacts what they match, named own-N, alone or after the built-in rules', () => {
    const red = new Redactor({ builtIn: false, patterns: ['ACME-\\d{4}', 'projectX'] });
    expect(red.text('ticket ACME-1234 of projectX', WHERE)).toBe('ticket [REDACTED:own-1] of [REDACTED:own-2]');
    const both = new Redactor({ builtIn: true, patterns: ['.+'] });
    // An own pattern never eats a built-in marker: the text around it is redacted, the marker stays.
    expect(both.text('a jane@example.org b', WHERE)).toBe('[REDACTED:own-1][REDACTED:email][REDACTED:own-1]');
  });

  it('refuses an invalid pattern, one that matches nothing, and nested repetition, naming it', () => {
    expect(() => ownPatterns(['ok', '(unclosed'])).toThrow(/pattern 2 \/\(unclosed\/ is not a valid regular expression/);
    expect(() => ownPatterns(['a*'])).toThrow(/matches the empty string/);
    expect(() => ownPatterns([''])).toThrow(PatternError);
    for (const bad of ['(a+)+$', '(\\w*)*x', '(x|y+){2,}', '((ab)*c)+'])
      expect(() => ownPatterns([bad]), bad).toThrow(/repeats a group that itself repeats/);
    for (const fine of ['(ab)+', '[(a+)]+x', '\\(a+\\)+', '(a){2}b+']) expect(() => ownPatterns([fine]), fine).not.toThrow();
  });

  it('finds a match that spans the 4,096th character, where the text used to be cut', () => {
    const red = new Redactor({ builtIn: false, patterns: ['SECRET-[a-z]+'] });
    const text = `${'a'.repeat(OWN_PIECE - 6)} SECRET-abcdefghijkl ${'b'.repeat(3 * OWN_PIECE)}`;
    const out = red.text(text, WHERE);
    expect(out).toBe(`${'a'.repeat(OWN_PIECE - 6)} [REDACTED:own-1] ${'b'.repeat(3 * OWN_PIECE)}`);
    expect(red.counts.get('own-1')).toBe(1);
  });

  it('runs a pattern on overlapping windows and finds what the whole text gives, for matches up to OWN_PIECE long', () => {
    // A seeded text of 40,000 characters with short secrets and long bracketed runs (up to OWN_PIECE) at every kind of offset.
    let seed = 7;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    let text = '';
    while (text.length < 40_000) {
      const r = rand(10);
      if (r === 0) text += `k${'0123456789'.slice(0, 1 + rand(10))}`;
      else if (r === 1) text += `<${'x'.repeat(rand(OWN_PIECE - 1))}>`;
      else text += 'lorem ipsum\n'.slice(0, 1 + rand(12));
    }
    const patterns = [/k[0-9]{1,10}/g, /<[^<>]*>/g];
    for (const p of patterns) {
      const mark = (m: string): string => `[${m.length}]`;
      const whole = text.replace(p, mark);
      expect(replaceInWindows(text, p, mark)).toBe(whole);
      expect(whole).not.toBe(text);
    }
    // A match exactly OWN_PIECE long, at offsets around each window's half and end.
    for (const at of [OWN_PIECE - 1, OWN_PIECE, 2 * OWN_PIECE - 1, 2 * OWN_PIECE + 3, 3 * OWN_PIECE - 2]) {
      const long = `${'.'.repeat(at)}<${'y'.repeat(OWN_PIECE - 2)}>${'.'.repeat(3 * OWN_PIECE)}`;
      expect(replaceInWindows(long, /<y+>/g, () => '#')).toBe(`${'.'.repeat(at)}#${'.'.repeat(3 * OWN_PIECE)}`);
    }
  });

  it('replaces a match longer than OWN_PIECE up to where its window ends, leaving none of its head', () => {
    const text = `ab<${'z'.repeat(3 * OWN_PIECE)}>`;
    const out = replaceInWindows(text, /<z+>?/g, () => '#');
    expect(out.startsWith('ab#')).toBe(true);
    expect(out.length).toBeLessThan(text.length - OWN_PIECE);
  });
});

describe('secrets inside JSON written as a string', () => {
  it('redacts fields and keys whose quotes are escaped, keeping the escapes', () => {
    const red = builtIn();
    const inner = JSON.stringify(JSON.stringify({ api_key: 'fake-field-secret', private_key: '-----BEGIN PRIVATE KEY-----\nAB\n' }));
    const out = red.text(inner, WHERE);
    expect(out).not.toContain('fake-field-secret');
    expect(out).not.toContain('BEGIN PRIVATE');
    expect(out).toContain('\\"api_key\\":\\"[REDACTED:secret-field]\\"');
  });
});
