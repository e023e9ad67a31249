import { detectFormat } from '../importers/registry';
import type { FormatId } from '../importers/types';
import { readJsonl } from '../reader';

/** Lines read before deciding (the loader looks at as many: src/main/session/load.ts). */
const SNIFF_LINES = 16;

/** Thrown by the line callback to stop reading once enough lines are in (the reader lets it through and closes the file). */
class Enough extends Error {}

/**
 * The format of a session file from its first lines, as the loader would choose it; null when no
 * importer is confident. Reads only the head of the file (plain or zstd), never the whole of it.
 */
export async function sniffFormat(path: string): Promise<FormatId | null> {
  const first: Record<string, unknown>[] = [];
  try {
    await readJsonl(
      path,
      (l) => {
        first.push(l.value);
        if (first.length >= SNIFF_LINES) throw new Enough();
      },
      // Bad lines are the loader's to report when the session is opened; here they just do not count.
      () => undefined,
      { chunkBytes: 64 * 1024 },
    );
  } catch (err: unknown) {
    if (!(err instanceof Enough)) throw err;
  }
  return detectFormat(first, path)?.importer.id ?? null;
}
