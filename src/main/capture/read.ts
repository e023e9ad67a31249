import { fail, ok, type Result } from '../../shared/eval/result';
import { readRegularHead } from '../files/open-regular';
import { describeIoError } from '../reader/io';
import type { Capture } from './exchange';
import { readClaudeTrace } from './read-claude-trace';
import { readHar } from './read-har';
import { readPalimpsestCapture } from './read-palimpsest';

/*
 * Reads any capture Palimpsest knows, telling the format from the first bytes: a Palimpsest
 * capture's lines have "type" capture or exchange, a claude-trace line has "request" and
 * "response" (or "logged_at"), and a HAR is one JSON object whose "log" holds "entries". Only
 * the head of the file is read to decide; a first line longer than that (a claude-trace request
 * with a long conversation) is recognised by how it begins.
 */

export type CaptureFormat = 'palimpsest' | 'claude-trace' | 'har';

const SNIFF_BYTES = 64 * 1024;

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function formatOfValue(v: unknown): CaptureFormat | null {
  if (!isObj(v)) return null;
  if (v.type === 'capture' || v.type === 'exchange') return 'palimpsest';
  if (isObj(v.request) && ('response' in v || 'logged_at' in v)) return 'claude-trace';
  if (isObj(v.log) && Array.isArray(v.log.entries)) return 'har';
  return null;
}

/** The format of a capture from its first bytes, or null when it is none Palimpsest reads. */
export function sniffFormat(head: string): CaptureFormat | null {
  const text = head.charCodeAt(0) === 0xfeff ? head.slice(1) : head;
  const trimmed = text.trimStart();
  // A pretty-printed HAR opens with "{" alone on its line, then "log".
  if (/^\{\s*"log"\s*:\s*\{/.test(trimmed)) return 'har';
  // The first few whole lines, parsed: a bad first line (a broken header) must not hide good ones.
  const lines = text.split('\n');
  const whole = lines.length > 1 ? lines.slice(0, -1) : [];
  for (const line of whole.slice(0, 8)) {
    if (line.trim() === '') continue;
    try {
      const f = formatOfValue(JSON.parse(line));
      if (f !== null) return f;
    } catch {
      // Not JSON: try the next line.
    }
  }
  // A first line longer than the head: recognise it by how it begins.
  if (/^\{\s*"type"\s*:\s*"(?:capture|exchange)"/.test(trimmed)) return 'palimpsest';
  if (/^\{\s*"request"\s*:\s*\{/.test(trimmed)) return 'claude-trace';
  // A one-line HAR whose head holds the whole document.
  try {
    return formatOfValue(JSON.parse(trimmed));
  } catch {
    return null;
  }
}

async function readHead(path: string): Promise<Result<string>> {
  try {
    return ok((await readRegularHead(path, SNIFF_BYTES)).toString('utf8'));
  } catch (e) {
    return fail(describeIoError(path, e));
  }
}

export async function readCapture(path: string): Promise<Result<Capture>> {
  const head = await readHead(path);
  if (!head.ok) return head;
  if (head.value.trim() === '') return fail(`${path} is empty: it holds no capture`);
  switch (sniffFormat(head.value)) {
    case 'palimpsest':
      return readPalimpsestCapture(path);
    case 'claude-trace':
      return readClaudeTrace(path);
    case 'har':
      return readHar(path);
    case null:
      return fail(`${path} is not a capture Palimpsest reads: not a Palimpsest capture, a claude-trace log or a HAR file`);
  }
}
