import { Redactor, type RedactionOptions } from '../../../src/shared/redact/redactor';
import { exportSession, type ExportOptions, type ExportSummary } from '../../../src/main/api/export/export';
import { StringSink } from '../../../src/main/api/export/sink';
import { SessionInspector } from '../../../src/main/session/inspector';
import { loadSession } from '../../../src/main/session/load';

export const NO_REDACTION: RedactionOptions = { builtIn: false, patterns: [] };
export const REDACT: RedactionOptions = { builtIn: true, patterns: [] };

/** Exports a fixture to a string, as the CLI does to a file (rule texts loaded first). */
export async function exportFixture(
  path: string,
  options: ExportOptions,
  redaction: RedactionOptions,
): Promise<{ text: string; summary: ExportSummary }> {
  const session = await loadSession(path, {});
  try {
    const inspector = new SessionInspector(session);
    await inspector.loadRuleTexts();
    const sink = new StringSink();
    const summary = await exportSession(inspector, path, options, sink, new Redactor(redaction));
    return { text: sink.text(), summary };
  } finally {
    await session.dispose();
  }
}
