import { readdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { readRegularHead } from '../files/open-regular';
import { bodyText } from './read-palimpsest';
import { requestSessionId } from './join/session-id';

/*
 * Finds the captures of a session without being told: `palimpsest record` writes
 * `<data dir>/captures/<time>-<pid>.capture.jsonl` by default, and a user may keep one beside the
 * session. A capture counts when it is named for the session file (`<session file>.capture.jsonl`),
 * or when it lies in the session's folder or the data dir's captures folder and its exchanges
 * carry the session's id (the header or body field the harness sends, as the join reads it).
 *
 * Bounded, because a folder may hold many large captures: at most `maxFiles` files are looked at,
 * and of each only the first `headBytes`. A whole line in that head is parsed; a line the bound
 * cut (a long conversation's request) counts when the session id appears in what was read of it —
 * a candidate only: the join itself takes nothing that names another session.
 */

export const CAPTURE_SUFFIX = '.capture.jsonl';

export interface DiscoverOptions {
  /** `<data dir>/captures` is searched too (src/main/files/data-dir.ts); null: not searched. */
  readonly dataDir: string | null;
  /** Most files whose head is read, over every folder. Default 64. */
  readonly maxFiles?: number;
  /** Bytes read from the start of each file. Default 1 MiB. */
  readonly headBytes?: number;
}

const MAX_FILES = 64;
const HEAD_BYTES = 1024 * 1024;

/** The capture named for a session file, where it would be. */
export function namedCapturePath(sessionPath: string): string {
  return `${resolve(sessionPath)}${CAPTURE_SUFFIX}`;
}

/** The first `bytes` of a regular file, and whether they filled the buffer (the file may go on); null: unreadable. */
async function readHead(path: string, bytes: number): Promise<{ text: string; full: boolean } | null> {
  try {
    const head = await readRegularHead(path, bytes);
    return { text: head.toString('utf8'), full: head.length === bytes };
  } catch {
    return null;
  }
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The session id an exchange line of a Palimpsest capture carries, or null. */
function lineSessionId(v: unknown): string | null {
  if (!isObj(v) || v.type !== 'exchange' || !isObj(v.request)) return null;
  const headers = Array.isArray(v.request.headers)
    ? v.request.headers.filter((h): h is [string, string] => Array.isArray(h) && typeof h[0] === 'string' && typeof h[1] === 'string')
    : [];
  let body: Record<string, unknown> | null = null;
  const b = v.request.body;
  if (isObj(b) && (b.encoding === 'utf8' || b.encoding === 'base64') && typeof b.data === 'string') {
    const text = bodyText({
      encoding: b.encoding,
      data: b.data,
      bytes: 0,
      sha256: '',
      ...(typeof b.decoded === 'string' ? { decoded: b.decoded } : {}),
    });
    try {
      const parsed: unknown = text === null ? null : JSON.parse(text);
      body = isObj(parsed) ? parsed : null;
    } catch {
      body = null;
    }
  }
  return requestSessionId(headers, body);
}

/** Whether the head of a capture shows an exchange of `sessionId` (see the header comment). */
export function headNamesSession(head: string, sessionId: string, cut: boolean): boolean {
  const lines = head.split('\n');
  const last = cut ? (lines.pop() ?? '') : '';
  for (const line of lines) {
    if (line.trim() === '') continue;
    try {
      if (lineSessionId(JSON.parse(line)) === sessionId) return true;
    } catch {
      // A bad line is skipped, as the reader skips it.
    }
  }
  return cut && last.includes(sessionId);
}

async function captureFiles(folder: string): Promise<string[]> {
  try {
    const entries = await readdir(folder, { withFileTypes: true });
    return entries
      .filter((e) => (e.isFile() || e.isSymbolicLink()) && e.name.endsWith(CAPTURE_SUFFIX))
      .map((e) => join(folder, e.name))
      .sort();
  } catch {
    // A missing or unreadable folder holds no capture.
    return [];
  }
}

/**
 * The captures of a session: the one named for its file first, then those whose exchanges carry
 * `sessionId` (none when the log records no id). Absolute paths, each once, in name order.
 */
export async function discoverCaptures(sessionPath: string, sessionId: string | null, opts: DiscoverOptions): Promise<string[]> {
  const maxFiles = opts.maxFiles ?? MAX_FILES;
  const headBytes = opts.headBytes ?? HEAD_BYTES;
  const found: string[] = [];
  const named = namedCapturePath(sessionPath);
  if ((await readHead(named, 1)) !== null) found.push(named);
  if (sessionId === null) return found;
  const folders = [dirname(resolve(sessionPath))];
  if (opts.dataDir !== null) folders.push(resolve(opts.dataDir, 'captures'));
  const seen = new Set([named]);
  let budget = maxFiles;
  for (const folder of [...new Set(folders)]) {
    for (const file of await captureFiles(folder)) {
      if (seen.has(file)) continue;
      seen.add(file);
      if (budget-- <= 0) return found;
      const head = await readHead(file, headBytes);
      if (head === null) continue;
      // The head filled the buffer: its last line may go on past it.
      if (headNamesSession(head.text, sessionId, head.full && !head.text.endsWith('\n'))) found.push(file);
    }
  }
  return found;
}
