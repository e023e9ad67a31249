import type { Diagnostic } from '../../shared/model/diagnostic';
import { NUL_REASON } from '../reader/decode';
import type { ReadStats } from '../reader/types';

/** Reader findings that say why a line gave no record. */
const LINE_RULES: ReadonlySet<string> = new Set([
  'READ_INVALID_JSON',
  'READ_NOT_OBJECT',
  'READ_LINE_TOO_LONG',
  'READ_TRUNCATED_LINE',
  'READ_INVALID_UTF8',
]);
/** Reasons quoted, at most: enough to see what the file is without repeating every line. */
const MAX_REASONS = 2;

/**
 * Why a file gave no line to import, as the reader saw it: empty, only blank lines, or lines none
 * of which is a JSON object (the count, and what was wrong with the first ones). "Empty" is said
 * only of a file with no bytes, so that a binary or garbled file is never reported as empty.
 */
export function nothingToRead(path: string, stats: ReadStats | undefined, diagnostics: readonly Diagnostic[]): string {
  const lines = stats?.lines ?? 0;
  if (lines === 0) return `${path} is empty: no line to read.`;
  const of = `${lines} line${lines === 1 ? '' : 's'}`;
  // Every finding of the first lines that failed (a line may be both invalid UTF-8 and not JSON).
  const reasons: string[] = [];
  const failed = new Set<number>();
  for (const d of diagnostics) {
    if (d.file !== path || d.line === null || !LINE_RULES.has(d.rule)) continue;
    if (!failed.has(d.line)) {
      if (failed.size >= MAX_REASONS) break;
      failed.add(d.line);
    }
    reasons.push(d.message);
  }
  if (reasons.length === 0) return `${path} has ${of}, all blank: no line to read.`;
  const binary = reasons.some((r) => r.includes(NUL_REASON)) ? ' It looks like binary data, not a JSON Lines log.' : '';
  return `${path} has ${of}, none of them readable.${binary} ${reasons.join(' ')}`;
}
