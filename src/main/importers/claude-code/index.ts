import type { EventBody } from '../../../shared/model/event';
import type { FileImport, FileInfo, ImportSink, Importer, SessionImport } from '../types';
import { claudeSessionFiles } from './files';
import { ClaudeSession, openFile } from './importer';
import { rehydrateClaudeCode } from './rehydrate';
import { sniffClaudeCode } from './sniff';

/**
 * Claude Code transcripts (`~/.claude/projects/<cwd>/<sessionId>.jsonl` with its
 * `<sessionId>/subagents/agent-*.jsonl`). The mapping onto the canonical model is documented at
 * the top of ./importer.ts.
 */
export const claudeCodeImporter: Importer = {
  id: 'claude-code',
  label: 'Claude Code transcript',
  sniff(first: readonly Record<string, unknown>[], path: string): number {
    return sniffClaudeCode(first, path);
  },
  open(file: FileInfo, sink: ImportSink): FileImport {
    return openFile(file, sink);
  },
  sessionFiles(path: string, isDirectory: boolean): Promise<string[] | null> {
    return claudeSessionFiles(path, isDirectory);
  },
  openSession(sink: ImportSink): SessionImport {
    return new ClaudeSession(sink);
  },
  rehydrate(event: EventBody, line: Record<string, unknown>): EventBody | null {
    return rehydrateClaudeCode(event, line);
  },
};
