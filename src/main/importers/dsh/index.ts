import type { EventBody } from '../../../shared/model/event';
import type { FileImport, FileInfo, ImportSink, Importer } from '../types';
import { DshFileImport } from './importer';
import { rehydrateDsh } from './rehydrate';
import { sniffDsh } from './sniff';

/**
 * DeepSeek Harness (`deepseek-ai/deepseek-harness`): the append-only `SessionEvent` log,
 * `session.jsonl` or `session.jsonl.zstd` (the reader decompresses), with packed chunk rows.
 * Also reads headless `stream-json` output (`session_event` wrappers). See DeepSeek Harness's
 * packages/core/session/src/types.ts and its compaction chapter for the protocol (docs/sources.md);
 * the mapping decisions are documented where they are made.
 */
export const dshImporter: Importer = {
  id: 'dsh',
  label: 'DeepSeek Harness session log',
  sniff(first: readonly Record<string, unknown>[], path: string): number {
    return sniffDsh(first, path);
  },
  open(_file: FileInfo, sink: ImportSink): FileImport {
    return new DshFileImport(sink);
  },
  rehydrate(event: EventBody, line: Record<string, unknown>): EventBody | null {
    return rehydrateDsh(event, line);
  },
};
