import type { EventBody } from '../../../shared/model/event';
import type { FileImport, FileInfo, ImportSink, Importer, SessionImport } from '../types';
import { GeminiFileImport } from './file';
import { rehydrateGeminiCli } from './rehydrate';
import { GeminiSession, geminiSessionFiles } from './session';
import { sniffGeminiCli } from './sniff';

/**
 * Gemini CLI (google-gemini/gemini-cli, Apache-2.0): one file per chat under
 * `~/.gemini/tmp/<project>/chats/`, JSONL records from v0.40 on (`session-<time>-<id>.jsonl`,
 * subagents in `chats/<parentSessionId>/<id>.jsonl`), one pretty-printed `.json` per chat
 * before (read whole by reader/document.ts). The recorder is
 * packages/core/src/services/chatRecordingService.ts; see ./records.ts for the records,
 * ./history.ts for what the model is sent, ./evidence.ts for what a written-back list is.
 */
export const geminiCliImporter: Importer = {
  id: 'gemini-cli',
  label: 'Gemini CLI session',
  sniff(first: readonly Record<string, unknown>[], path: string): number {
    return sniffGeminiCli(first, path);
  },
  open(file: FileInfo, sink: ImportSink): FileImport {
    return new GeminiFileImport(sink, file.path);
  },
  sessionFiles(path: string, isDirectory: boolean): Promise<string[] | null> {
    return geminiSessionFiles(path, isDirectory);
  },
  openSession(sink: ImportSink): SessionImport {
    return new GeminiSession(sink);
  },
  rehydrate(event: EventBody, line: Record<string, unknown>): EventBody | null {
    return rehydrateGeminiCli(event, line);
  },
};
