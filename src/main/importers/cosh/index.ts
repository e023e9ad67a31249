import type { EventBody } from '../../../shared/model/event';
import type { FileImport, FileInfo, ImportSink, Importer } from '../types';
import { CoshFileImport } from './file';
import { rehydrateCosh } from './rehydrate';
import { sniffCosh } from './sniff';

/**
 * cosh (DiegoZaluski/co-sh): one JSONL of versioned `HistoryEvent` deltas per root session,
 * `{data_dir}/sessions/{xxh32(cwd)}/session-{root-id}.jsonl`, all branches in one file. See
 * cosh's source and its docs/context-compaction.md (docs/sources.md), and ./machine.ts for the
 * mapping.
 */
export const coshImporter: Importer = {
  id: 'cosh',
  label: 'cosh session history',
  sniff(first: readonly Record<string, unknown>[], path: string): number {
    return sniffCosh(first, path);
  },
  open(file: FileInfo, sink: ImportSink): FileImport {
    return new CoshFileImport(sink, file.path);
  },
  rehydrate(event: EventBody, line: Record<string, unknown>): EventBody | null {
    return rehydrateCosh(event, line);
  },
};
