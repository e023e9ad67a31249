import { describe, expect, it } from 'vitest';
import { intFlag, parseArgs, stringFlag, UsageError } from '../../../src/main/command/args';

// The CLI's argument parser: Node's util.parseArgs splits the words, the checks and messages are ours.

const SPEC = { json: 'boolean', root: 'value', format: 'value', limit: 'value' } as const;

describe('parseArgs', () => {
  it('reads --flag value and --flag=value, keeps every value of a repeated flag and the last in flags', () => {
    const a = parseArgs(['s.jsonl', '--root', 'codex=/a', '--json', '--root=claude-code=/b', 'x'], SPEC);
    expect(a.positional).toEqual(['s.jsonl', 'x']);
    expect(a.flags.get('json')).toBe(true);
    expect(a.lists.get('root')).toEqual(['codex=/a', 'claude-code=/b']);
    expect(stringFlag(a, 'root')).toBe('claude-code=/b');
  });

  it('takes the next word as a value even when it starts with a dash', () => {
    const a = parseArgs(['--format', '--json', '--limit', '-5'], SPEC);
    expect(a.flags.get('format')).toBe('--json');
    expect(a.flags.has('json')).toBe(false);
    expect(() => intFlag(a, 'limit')).toThrow('--limit must be a whole number ≥ 0, got "-5"');
  });

  it('keeps words with one dash, and every word after --, as positional', () => {
    const a = parseArgs(['-', '-x', '-abc', '-5', '--', '--json', '--nope'], SPEC);
    expect(a.positional).toEqual(['-', '-x', '-abc', '-5', '--json', '--nope']);
    expect(a.flags.size).toBe(0);
  });

  it('refuses unknown flags, a value on a switch and a missing or empty value, with our messages', () => {
    const bad = (argv: string[]) => () => parseArgs(argv, SPEC);
    expect(bad(['--jsn'])).toThrow(new UsageError('unknown option --jsn'));
    expect(bad(['--jsn=1'])).toThrow('unknown option --jsn');
    expect(bad(['--json=yes'])).toThrow('--json takes no value');
    expect(bad(['--root'])).toThrow('--root needs a value');
    expect(bad(['--root='])).toThrow('--root needs a value');
    expect(bad(['--root', ''])).toThrow('--root needs a value');
    // The first bad word is the one reported.
    expect(bad(['--nope', '--json=1'])).toThrow('unknown option --nope');
  });

  it('knows only the flags of the spec, not names an object inherits', () => {
    expect(() => parseArgs(['--constructor', 'x'], SPEC)).toThrow('unknown option --constructor');
    expect(() => parseArgs(['--toString'], SPEC)).toThrow('unknown option --toString');
    expect(() => parseArgs(['--__proto__=x'], SPEC)).toThrow('unknown option --__proto__');
  });
});
