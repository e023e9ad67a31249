import type { Block } from '../model/content';
import { blockChars, blockIsElided } from '../model/content';
import type { Diagnostic, Severity } from '../model/diagnostic';
import type { Measure } from './measure';
import { grouped } from '../grouped';

/**
 * A finding. `seqs` lists the cited events, the main one first: file and line are filled in from
 * it by whoever knows the files (src/main/session/load.ts `locateDiagnostics`).
 */
export function finding(rule: string, severity: Severity, message: string, seqs: readonly number[]): Diagnostic {
  const unique = [...new Set(seqs.filter((s) => Number.isInteger(s) && s >= 0))];
  return { rule, severity, message, file: null, line: null, seqs: unique };
}

/** 12,345 */
export const num = (n: number): string => (Number.isFinite(n) ? grouped(Math.round(n)) : String(n));

export const plural = (n: number, one: string, many = `${one}s`): string => `${num(n)} ${n === 1 ? one : many}`;

/** "a, b and c" (at most `max` names, then "and N more"). */
export function list(names: readonly string[], max = 5): string {
  const shown = names.slice(0, max).map((n) => `"${n}"`);
  const more = names.length - shown.length;
  if (more > 0) return `${shown.join(', ')} and ${num(more)} more`;
  if (shown.length <= 1) return shown.join('');
  return `${shown.slice(0, -1).join(', ')} and ${shown[shown.length - 1]}`;
}

/** "12,345 tokens (reported by the provider)" */
export function measureText(m: Measure): string {
  const what = `${num(m.value)} ${m.unit}`;
  switch (m.source) {
    case 'reported':
      return `${what} (reported by the provider)`;
    case 'harness':
      return `${what} (as the harness measured it)`;
    case 'estimated':
      return `${what} (local estimate)`;
    case 'counted':
      return `${what} (counted here; the log has no token counts for it)`;
  }
}

/** Characters of text of blocks, elided text included. */
export function charsOf(blocks: readonly Block[]): number {
  let n = 0;
  for (const b of blocks) n += blockChars(b);
  return n;
}

/** Plain text of blocks: text blocks, and the text inside tool results. */
export function textOf(blocks: readonly Block[]): string {
  const parts: string[] = [];
  for (const b of blocks) {
    if (b.type === 'text') parts.push(b.text);
    else if (b.type === 'tool_result') for (const c of b.content) if (c.type === 'text') parts.push(c.text);
  }
  return parts.join('\n');
}

/** True when some text of the blocks is only a preview in memory. */
export function anyElided(blocks: readonly Block[]): boolean {
  return blocks.some(blockIsElided);
}

/** True when the blocks say nothing: no non-blank text, no readable or opaque content of any size. */
export function isEmptyContent(blocks: readonly Block[]): boolean {
  for (const b of blocks) {
    switch (b.type) {
      case 'text':
        if (b.text.trim().length > 0 || (b.elided ?? 0) > 0) return false;
        break;
      case 'opaque':
        if (b.chars === undefined || b.chars > 0) return false;
        break;
      case 'image':
      case 'tool_call':
        return false;
      case 'tool_result':
        if (!isEmptyContent(b.content)) return false;
        break;
      case 'reasoning':
        // A reasoning marker (Rind's handoff) is not summary content.
        break;
    }
  }
  return true;
}
