import type { Redactor, Where } from '../../../shared/redact/redactor';
import type { ReplayState } from '../../../shared/replay/fold';
import type { SessionInspector } from '../../session/inspector';
import type { Sink } from './sink';

/** What every part of an export reads and writes to. */
export interface ExportContext {
  readonly inspector: SessionInspector;
  readonly branch: string;
  readonly state: ReplayState;
  /** The session as the user named it (shown redacted). */
  readonly path: string;
  readonly red: Redactor;
  readonly sink: Sink;
}

/** Most characters of one text written to an export; the rest is counted, not written. */
export const EXPORT_TEXT_CAP = 200_000;

/**
 * A text as it may be exported: redacted whole first, then cut, so that a cut never leaves the head
 * of a secret that the rule would only have recognised whole.
 */
export function exported(ctx: ExportContext, text: string, where: Where): { text: string; cut: number } {
  const r = ctx.red.text(text, where);
  if (r.length <= EXPORT_TEXT_CAP) return { text: r, cut: 0 };
  return { text: r.slice(0, EXPORT_TEXT_CAP), cut: r.length - EXPORT_TEXT_CAP };
}

/**
 * A text the API already cut (a LongText: summaries, instructions, checkpoints over 200,000
 * characters), ended at its last whitespace: a token the cut went through is left out whole rather
 * than exported in part, where no rule would know its head.
 */
export function uncut(t: { readonly text: string; readonly truncated: boolean }): string {
  if (!t.truncated) return t.text;
  const end = Math.max(t.text.lastIndexOf(' '), t.text.lastIndexOf('\n'), t.text.lastIndexOf('\t'));
  return end > 0 ? t.text.slice(0, end) : '';
}
