import { openCodeFolders } from '../../dialects/opencode/sources';
import type { FileImport, FileInfo, ImportSink, Importer } from '../types';
import { OpenCodeImport } from './import';
import { materialiseOpenCode } from './materialise';
import { rehydrateOpenCode } from './rehydrate';
import { sniffOpenCode } from './sniff';

/**
 * OpenCode (anomalyco/opencode, formerly sst/opencode; MIT): sessions in an SQLite database
 * (`opencode.db`, database.ts) or, in older versions, JSON storage trees (tree.ts), read into a
 * private JSON-lines copy of one session (materialise.ts) and from there into canonical events
 * (import.ts). docs/sources.md names the files of OpenCode's source each mapping follows.
 */
export const openCodeImporter: Importer = {
  id: 'opencode',
  label: 'OpenCode session (database or storage folder)',
  sniff(first: readonly Record<string, unknown>[]): number {
    return sniffOpenCode(first);
  },
  materialise: materialiseOpenCode,
  /**
   * A folder holding OpenCode's databases or storage trees is one session source to `inspect` and
   * `validate` (not a folder to search for session files): loading it asks which session, or
   * reads the only one. The load itself goes through `materialise`, never through these files.
   */
  async sessionFiles(path: string, isDirectory: boolean): Promise<string[] | null> {
    if (!isDirectory) return null;
    const found = await openCodeFolders(path);
    return found.length > 0 ? found : null;
  },
  open(_file: FileInfo, sink: ImportSink): FileImport {
    return new OpenCodeImport(sink);
  },
  rehydrate: rehydrateOpenCode,
};
