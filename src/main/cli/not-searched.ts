import { SEARCH_DEPTH } from '../session/targets';

/**
 * Says on stderr which folders a directory search left out for being too deep, so that a session
 * below them is never missed without a word. The first few are named; each can be given instead.
 */
export function notSearchedNote(folders: readonly string[], io: { err(text: string): void }): void {
  if (folders.length === 0) return;
  const shown = folders.slice(0, 5);
  io.err(
    `note: ${folders.length} folder${folders.length === 1 ? ' was' : 's were'} not searched, more than ${SEARCH_DEPTH} levels down; give one to read the sessions in it:`,
  );
  for (const f of shown) io.err(`  ${f}`);
  if (folders.length > shown.length) io.err(`  … and ${folders.length - shown.length} more`);
}
