import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { EventBody } from '../../../shared/model/event';
import type { FileImport, FileInfo, ImportSink, Importer, SessionImport } from '../types';
import { rehydrateRind } from './rehydrate';
import { RindSession } from './session';
import { sniffRind } from './sniff';

/**
 * Rind (`Azzurroooo/rind`, read at dfe87c5): a session is a directory `~/.rind/sessions/<id>/`
 * with `meta.json`, `messages.jsonl`, `tool_calls.jsonl` and (after the first compaction)
 * `compactions.jsonl`. See Rind's agent/infrastructure/persistence/ and ./session.ts for the mapping.
 */

async function isFile(path: string): Promise<boolean> {
  const s = await stat(path).catch(() => null);
  return s !== null && s.isFile();
}

export const rindImporter: Importer = {
  id: 'rind',
  label: 'Rind session',
  sniff(first: readonly Record<string, unknown>[], path: string): number {
    return sniffRind(first, path);
  },
  /**
   * A directory is a Rind session when it holds `messages.jsonl`. Read order: the joined files
   * first (`compactions.jsonl`, `tool_calls.jsonl`), then `messages.jsonl`, so every message is
   * joined as it streams by. A lone file is read alone (companions are read only through the
   * directory).
   */
  async sessionFiles(path: string, isDirectory: boolean): Promise<string[] | null> {
    if (!isDirectory) return null;
    const messages = join(path, 'messages.jsonl');
    if (!(await isFile(messages))) return null;
    const files: string[] = [];
    for (const name of ['compactions.jsonl', 'tool_calls.jsonl']) {
      const p = join(path, name);
      // Anything there is listed, not only a regular file: the reader then refuses a FIFO or a
      // device by name (READ_IO) instead of the session saying only that the file was not read.
      if (
        await stat(p).then(
          () => true,
          () => false,
        )
      )
        files.push(p);
    }
    files.push(messages);
    return files;
  },
  open(file: FileInfo, sink: ImportSink): FileImport {
    const session = new RindSession(sink);
    const f = session.file(file);
    return {
      line: (l) => f.line(l),
      end: () => {
        f.end();
        session.end();
      },
    };
  },
  openSession(sink: ImportSink): SessionImport {
    return new RindSession(sink);
  },
  rehydrate(event: EventBody, line: Record<string, unknown>): EventBody | null {
    return rehydrateRind(event, line);
  },
};
