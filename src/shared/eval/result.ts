import type { z } from 'zod';

/*
 * Failures as values. Every parser of the eval layer returns a Result whose error names the file
 * and the field, so a user can fix a spec or a facts file without reading a stack trace.
 */

export { fail, ok, type Result } from '../result';

/** A zod path as a user writes it: traces[0].targets[1].compaction. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out === '' ? String(p) : `.${String(p)}`;
  }
  return out === '' ? '(top level)' : out;
}

/** One line per issue: "<file>: <field>: <message>". */
export function issuesText(file: string, error: z.ZodError): string {
  return error.issues.map((i) => `${file}: ${fieldPath(i.path)}: ${i.message}`).join('\n');
}
