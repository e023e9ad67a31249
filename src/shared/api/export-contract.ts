import { z } from 'zod';
import { BranchName, Count, SessionId } from './scalars';

/**
 * Export of a session (docs/export.md): the preview of what redaction would change, and the export
 * itself. Both run in main; the renderer never builds an export. The desktop app saves it through
 * a native save dialog in main; the web host returns the document for the page to download.
 */

/** Most own patterns, and characters of one. */
export const MAX_OWN_PATTERNS = 20;
export const MAX_PATTERN_CHARS = 1000;
/** Most redactions a preview lists (the rest are counted). */
export const MAX_PREVIEW_ROWS = 2000;
/** Most characters of a document the web host returns; a bigger session is exported with the command line. */
export const MAX_DOCUMENT_CHARS = 64 * 1024 * 1024;

const ExportRequest = z.object({
  sessionId: SessionId,
  branch: BranchName.optional(),
  kind: z.enum(['html', 'markdown']),
  /** The compaction of a Markdown export (required for one). */
  compactionId: z.string().min(1).max(1000).optional(),
  /** The built-in rules on or off. */
  redact: z.boolean(),
  /** The user's own patterns (JavaScript regular expressions); one turns the built-in rules on too. */
  patterns: z.array(z.string().min(1).max(MAX_PATTERN_CHARS)).max(MAX_OWN_PATTERNS),
});

const ByRule = z.record(z.string(), Count);

export const ExportPreviewRow = z.object({ rule: z.string(), place: z.string(), field: z.string(), excerpt: z.string() });
export type ExportPreviewRow = z.infer<typeof ExportPreviewRow>;

export const EXPORT_CONTRACT = {
  /** What the export would redact, and where, each with an excerpt of the redacted text; nothing is written. */
  previewExport: {
    input: ExportRequest,
    output: z.object({ redactions: Count, byRule: ByRule, rows: z.array(ExportPreviewRow).max(MAX_PREVIEW_ROWS), unlisted: Count }),
  },
  /**
   * The export. The desktop app asks where to save it (native dialog in main) and writes it there:
   * `saved` is the path, or null when the user cancelled. The web host answers with `document`, for
   * the page to download, and refuses (NOT_AVAILABLE) one over MAX_DOCUMENT_CHARS.
   */
  exportSession: {
    input: ExportRequest,
    output: z.object({
      saved: z.string().nullable(),
      cancelled: z.boolean(),
      document: z.object({ filename: z.string(), mediaType: z.string(), text: z.string() }).nullable(),
      redactions: Count,
      byRule: ByRule,
    }),
  },
} as const;

export type ExportMethod = keyof typeof EXPORT_CONTRACT;
