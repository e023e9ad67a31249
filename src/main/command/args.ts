import { parseArgs as splitArgs } from 'node:util';

/**
 * A strict argument parser: unknown flags are errors, not silently ignored. It imports nothing
 * but Node, so `palimpsest ls` can use it in its own small bundle.
 */
export interface ParsedArgs {
  readonly positional: string[];
  readonly flags: Map<string, string | true>;
  /** Every value of each flag that takes one, in order (`flags` keeps the last). */
  readonly lists: Map<string, string[]>;
}

export class UsageError extends Error {}

/**
 * `spec` maps each allowed flag to whether it takes a value. `--flag=value` and `--flag value`
 * are both accepted; a flag's value may start with a dash; words after `--` are positional.
 */
export function parseArgs(argv: readonly string[], spec: Readonly<Record<string, 'value' | 'boolean'>>): ParsedArgs {
  const options: Record<string, { type: 'string' | 'boolean' }> = {};
  for (const [name, kind] of Object.entries(spec)) options[name] = { type: kind === 'value' ? 'string' : 'boolean' };
  // Node's parser, loose, splits the words; the checks are ours, for our messages and for
  // unknown flags reported where they stand (strict mode would say "Unknown option '--x'...").
  const { tokens } = splitArgs({ args: [...argv], options, strict: false, allowPositionals: true, tokens: true });
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  const lists = new Map<string, string[]>();
  let shortAt = -1;
  for (const t of tokens) {
    if (t.kind === 'positional') positional.push(t.value);
    if (t.kind !== 'option') continue;
    // No short options: a word with one dash ("-x", "-5", "-abc", split by Node) is positional.
    if (!t.rawName.startsWith('--')) {
      if (t.index !== shortAt) positional.push(argv[t.index] as string);
      shortAt = t.index;
      continue;
    }
    const kind = Object.hasOwn(spec, t.name) ? spec[t.name] : undefined;
    if (!kind) throw new UsageError(`unknown option --${t.name}`);
    if (kind === 'boolean') {
      if (t.inlineValue) throw new UsageError(`--${t.name} takes no value`);
      flags.set(t.name, true);
    } else {
      if (t.value === undefined || t.value === '') throw new UsageError(`--${t.name} needs a value`);
      flags.set(t.name, t.value);
      lists.set(t.name, [...(lists.get(t.name) ?? []), t.value]);
    }
  }
  return { positional, flags, lists };
}

export function intFlag(args: ParsedArgs, name: string): number | undefined {
  const v = args.flags.get(name);
  if (v === undefined) return undefined;
  if (v === true || !/^\d+$/.test(v)) throw new UsageError(`--${name} must be a whole number ≥ 0, got "${String(v)}"`);
  return Number(v);
}

export function stringFlag(args: ParsedArgs, name: string): string | undefined {
  const v = args.flags.get(name);
  return typeof v === 'string' ? v : undefined;
}
