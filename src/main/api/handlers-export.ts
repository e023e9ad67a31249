import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { z } from 'zod';
import { CONTRACT, MAX_DOCUMENT_CHARS, MAX_PREVIEW_ROWS, type ApiOutput, type ExportMethod } from '../../shared/api/contract';
import { PatternError } from '../../shared/redact/own-patterns';
import { Redactor } from '../../shared/redact/redactor';
import { ExportInputError, exportSession, type ExportOptions } from './export/export';
import { sessionTitle } from './export/html-session';
import { FileSink, NullSink, StringSink, TooLarge } from './export/sink';
import type { HandlerContext } from './handlers';
import { ApiFailure, type OpenSession } from './sessions';

/**
 * Export handlers (docs/export.md): the preview and the export run in main, on the open session.
 * The desktop app saves through `saveExport` (a native dialog in main: the page never names the
 * file written); the web host has none and returns the document for the page to download.
 */

export type ExportImpl = { readonly [M in ExportMethod]: (input: z.output<(typeof CONTRACT)[M]['input']>) => Promise<ApiOutput<M>> };

/** Asks where to save an export; null: the user cancelled. */
export type SaveExport = (suggestedName: string, kind: 'html' | 'markdown') => Promise<string | null>;

type Input = z.output<(typeof CONTRACT)['previewExport']['input']>;

function redactor(input: Input): Redactor {
  try {
    return new Redactor({ builtIn: input.redact || input.patterns.length > 0, patterns: input.patterns });
  } catch (err: unknown) {
    if (err instanceof PatternError) throw new ApiFailure('BAD_INPUT', err.message);
    throw err;
  }
}

function options(s: OpenSession, input: Input): ExportOptions {
  const branch = input.branch ?? s.inspector.defaultBranch;
  if (!s.inspector.hasBranch(branch))
    throw new ApiFailure('NO_BRANCH', `No branch "${branch}"; branches: ${s.inspector.branches.map((b) => b.name).join(', ')}.`);
  return { kind: input.kind, branch, ...(input.compactionId !== undefined ? { compaction: input.compactionId } : {}) };
}

async function run<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err: unknown) {
    if (err instanceof ExportInputError) throw new ApiFailure('BAD_INPUT', err.message);
    throw err;
  }
}

/** A file name for the save dialog and the download: the session's title, tamed, redacted first. */
function suggestedName(s: OpenSession, red: Redactor, input: Input): string {
  const title = red.text(sessionTitle({ inspector: s.inspector, path: s.path }), { place: 'document', field: 'file name' });
  const base =
    title
      .replace(/\[REDACTED:[a-z0-9-]+\]/g, 'redacted')
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^[-.]+|-+$/g, '')
      .slice(0, 80) || 'session';
  return input.kind === 'markdown'
    ? `${base}-${(input.compactionId ?? 'compaction').replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 40)}.md`
    : `${base}.html`;
}

/** The export never lands on the session's own files. */
async function refuseSource(s: OpenSession, target: string): Promise<void> {
  const real = (p: string): Promise<string> => realpath(p).catch(() => resolve(p));
  const t = await real(target);
  const sources = await Promise.all([s.path, ...s.inspector.session.files.map((f) => f.path)].map(real));
  if (sources.includes(t)) throw new ApiFailure('BAD_INPUT', 'That file is the session itself: an export never writes to its source.');
}

export function exportImplementations(ctx: HandlerContext): ExportImpl {
  return {
    async previewExport(input) {
      const red = redactor(input);
      if (!red.active) return CONTRACT.previewExport.output.parse({ redactions: 0, byRule: {}, rows: [], unlisted: 0 });
      const s = ctx.registry.get(input.sessionId);
      const r = await run(() => exportSession(s.inspector, s.path, options(s, input), new NullSink(), red));
      const rows = r.listed.slice(0, MAX_PREVIEW_ROWS);
      return CONTRACT.previewExport.output.parse({
        redactions: r.redactions,
        byRule: r.byRule,
        rows,
        unlisted: r.redactions - rows.length,
      });
    },

    async exportSession(input) {
      const red = redactor(input);
      const s = ctx.registry.get(input.sessionId);
      const opts = options(s, input);
      const name = suggestedName(s, red, input);
      if (ctx.saveExport) {
        const path = await ctx.saveExport(name, input.kind);
        if (path === null)
          return CONTRACT.exportSession.output.parse({ saved: null, cancelled: true, document: null, redactions: 0, byRule: {} });
        await refuseSource(s, path);
        const sink = new FileSink(path);
        try {
          const r = await run(() => exportSession(s.inspector, s.path, opts, sink, red));
          await sink.close();
          return CONTRACT.exportSession.output.parse({
            saved: path,
            cancelled: false,
            document: null,
            redactions: r.redactions,
            byRule: r.byRule,
          });
        } catch (err: unknown) {
          await sink.abort();
          throw err;
        }
      }
      const sink = new StringSink(MAX_DOCUMENT_CHARS);
      const r = await run(() => exportSession(s.inspector, s.path, opts, sink, red)).catch((err: unknown) => {
        if (err instanceof TooLarge)
          throw new ApiFailure(
            'NOT_AVAILABLE',
            `This export is too big to download from the page (${err.message}): run \`palimpsest export\` where the session is.`,
          );
        throw err;
      });
      const text = sink.text();
      return CONTRACT.exportSession.output.parse({
        saved: null,
        cancelled: false,
        document: { filename: name, mediaType: input.kind === 'html' ? 'text/html' : 'text/markdown', text },
        redactions: r.redactions,
        byRule: r.byRule,
      });
    },
  };
}
