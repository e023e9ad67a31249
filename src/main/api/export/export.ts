import type { Redaction, Redactor } from '../../../shared/redact/redactor';
import type { SessionInspector } from '../../session/inspector';
import type { ExportContext } from './context';
import { writeSessionHtml } from './html-session';
import { writeCompactionMarkdown } from './markdown';
import type { Sink } from './sink';

/**
 * Export of a loaded session (docs/export.md): the whole session as one HTML file, or one
 * compaction as Markdown, every text through the redactor. The preview is the same run into a sink
 * that writes nothing, and a redactor built before the session is read (a bad own pattern is
 * refused first), so it lists exactly what the export would redact.
 */

export type ExportKind = 'html' | 'markdown';

export interface ExportOptions {
  readonly kind: ExportKind;
  readonly branch?: string;
  /** The compaction a Markdown export is about (required for it). */
  readonly compaction?: string;
}

export interface ExportSummary {
  readonly redactions: number;
  readonly byRule: Record<string, number>;
  /** Each redaction, at most MAX_LISTED of them. */
  readonly listed: readonly Redaction[];
}

/** The request names a branch or compaction the session does not have. */
export class ExportInputError extends Error {}

export async function exportSession(
  inspector: SessionInspector,
  path: string,
  options: ExportOptions,
  sink: Sink,
  red: Redactor,
): Promise<ExportSummary> {
  const branch = options.branch ?? inspector.defaultBranch;
  if (!inspector.hasBranch(branch))
    throw new ExportInputError(`no branch "${branch}" in ${path}; branches: ${inspector.branches.map((b) => b.name).join(', ')}`);
  const state = inspector.replay(branch);
  const ctx: ExportContext = { inspector, branch, state, path, red, sink };
  if (options.kind === 'markdown') {
    const id = options.compaction;
    if (id === undefined) throw new ExportInputError('a Markdown export is of one compaction: name it (--compaction ID)');
    if (!state.compactions.some((c) => c.id === id))
      throw new ExportInputError(
        state.compactions.length === 0
          ? `no compaction "${id}" in ${path}: it has none`
          : `no compaction "${id}" in ${path}; compactions: ${state.compactions.map((c) => c.id).join(', ')}`,
      );
    await writeCompactionMarkdown(ctx, id);
  } else await writeSessionHtml(ctx);
  return { redactions: red.count, byRule: Object.fromEntries(red.counts), listed: red.listed };
}
