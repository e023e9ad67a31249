import { IMPORTERS } from '../importers/registry';
import type { FormatId } from '../importers/types';
import { stringFlag, UsageError, type ParsedArgs } from '../command/args';

/** Every format id an importer reads; `--format` takes one of them. */
export const FORMATS: readonly FormatId[] = IMPORTERS.map((i) => i.id);

export function formatFlag(args: ParsedArgs): FormatId | undefined {
  const f = stringFlag(args, 'format');
  if (f === undefined) return undefined;
  if (!(FORMATS as readonly string[]).includes(f)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}, got "${f}"`);
  return f as FormatId;
}
