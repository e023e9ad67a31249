import { IMPORTERS } from '../importers/registry';
import type { FormatId } from '../importers/types';
/** A small, strict argument parser: unknown flags are errors, not silently ignored. */
export interface ParsedArgs {
  readonly positional: string[];
  readonly flags: Map<string, string | true>;
}

export class UsageError extends Error {}

/**
 * `spec` maps each allowed flag to whether it takes a value. `--flag=value` and `--flag value`
 * are both accepted.
 */
export function parseArgs(argv: readonly string[], spec: Readonly<Record<string, 'value' | 'boolean'>>): ParsedArgs {
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
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
    }
  }
  return { positional, flags };
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

/** Every format id an importer reads; `--format` takes one of them. */
export const FORMATS: readonly FormatId[] = IMPORTERS.map((i) => i.id);

export function formatFlag(args: ParsedArgs): FormatId | undefined {
  const f = stringFlag(args, 'format');
  if (f === undefined) return undefined;
  if (!(FORMATS as readonly string[]).includes(f)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}, got "${f}"`);
  return f as FormatId;
}
