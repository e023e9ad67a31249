/**
 * A small, strict argument parser: unknown flags are errors, not silently ignored. It imports
 * nothing, so `palimpsest ls` can use it in its own small bundle.
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
 * are both accepted.
 */
export function parseArgs(argv: readonly string[], spec: Readonly<Record<string, 'value' | 'boolean'>>): ParsedArgs {
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  const lists = new Map<string, string[]>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--') {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (!a.startsWith('--') || a === '-') {
      positional.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = eq < 0 ? a.slice(2) : a.slice(2, eq);
    const kind = spec[name];
    if (!kind) throw new UsageError(`unknown option --${name}`);
    if (kind === 'boolean') {
      if (eq >= 0) throw new UsageError(`--${name} takes no value`);
      flags.set(name, true);
    } else {
      const value = eq >= 0 ? a.slice(eq + 1) : argv[++i];
      if (value === undefined || value === '') throw new UsageError(`--${name} needs a value`);
      flags.set(name, value);
      lists.set(name, [...(lists.get(name) ?? []), value]);
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
