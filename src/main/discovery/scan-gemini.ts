import { statSync } from 'node:fs';
import { readRegularFileSync } from '../files/open-regular';
import { scanFileSync } from './scan-file';
import { ParsedScanner } from './scan-small';
import type { ScanResult } from './types';

/*
 * Gemini CLI (src/main/importers/gemini-cli): a model call is a gemini message that names its
 * `model` the first time its id is written (a message written again is the same call); a rewind
 * takes back the calls of the messages it removes; a compaction is a `$set` of `messages` that
 * holds a new `<state_snapshot>` summary followed by the acknowledgement. Masking alone (also a
 * compaction to the importer) is not counted here: telling it apart needs the items compared.
 * A legacy `.json` is one document, parsed whole.
 */

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const str = (x: unknown): string | undefined => (typeof x === 'string' ? x : undefined);

const ACK = 'Got it. Thanks for the additional context!';
/** A legacy document larger than this is not parsed for `ls` (it is still listed). */
const MAX_DOCUMENT_BYTES = 64 * 1024 * 1024;

function text(content: unknown): string {
  if (typeof content === 'string') return content;
  const parts = Array.isArray(content) ? content : [content];
  return parts
    .map((p) => (isObj(p) && typeof p.text === 'string' && p.thought !== true ? p.text : typeof p === 'string' ? p : ''))
    .join('');
}

class GeminiScanner extends ParsedScanner {
  /** Message ids in order, and which of them were model calls. */
  private readonly order = new Map<string, boolean>();
  private compactions = 0;
  private readonly summaries = new Set<string>();

  value(v: Record<string, unknown>): void {
    if (typeof v.$rewindTo === 'string') {
      const ids = [...this.order.keys()];
      const at = ids.indexOf(v.$rewindTo);
      for (const id of at < 0 ? ids : ids.slice(at)) this.order.delete(id);
      return;
    }
    if (isObj(v.$set)) {
      const set = v.$set;
      this.time(set.lastUpdated);
      if (typeof set.summary === 'string' && set.summary !== '') this.title = set.summary;
      if (Array.isArray(set.messages)) this.list(set.messages);
      return;
    }
    if (typeof v.sessionId === 'string' && !('type' in v)) {
      this.id ??= v.sessionId;
      this.time(v.startTime);
      this.time(v.lastUpdated);
      if (typeof v.summary === 'string' && v.summary !== '') this.title = v.summary;
      if (Array.isArray(v.messages)) for (const m of v.messages) if (isObj(m)) this.message(m);
      return;
    }
    this.message(v);
  }

  private message(m: Record<string, unknown>): void {
    const id = str(m.id);
    if (id === undefined || typeof m.type !== 'string') return;
    this.time(m.timestamp);
    const model = str(m.model);
    if (m.type === 'gemini' && model !== undefined) this.model = model;
    if (!this.order.has(id)) this.order.set(id, m.type === 'gemini' && model !== undefined);
  }

  private list(messages: unknown[]): void {
    const calls = new Map<string, boolean>();
    for (let i = 0; i < messages.length; i++) {
      const m = messages[i];
      if (!isObj(m) || typeof m.id !== 'string') continue;
      calls.set(m.id, this.order.get(m.id) ?? false);
      const next = messages[i + 1];
      if (
        m.type === 'user' &&
        text(m.content).includes('<state_snapshot>') &&
        isObj(next) &&
        next.type === 'gemini' &&
        text(next.content).trim() === ACK &&
        !this.summaries.has(m.id)
      ) {
        this.summaries.add(m.id);
        this.compactions++;
      }
    }
    // The calls made so far stay made: a written-back list changes the view, not the past.
    const made = [...this.order.values()].filter(Boolean).length;
    this.order.clear();
    let kept = 0;
    for (const [id, call] of calls) {
      this.order.set(id, call);
      if (call) kept++;
    }
    this.carried += made - kept;
  }

  private carried = 0;

  /** The latest time written, not the last: messages are rewritten in place (upserts). */
  protected override time(t: unknown): void {
    if (typeof t !== 'string') return;
    this.startedAt ??= t;
    if (this.endedAt === null || t > this.endedAt) this.endedAt = t;
  }

  result(problems: string[] = []): ScanResult {
    return this.out(this.carried + [...this.order.values()].filter(Boolean).length, this.compactions, problems);
  }
}

export function scanGemini(path: string): ScanResult {
  const s = new GeminiScanner();
  if (/\.json$/i.test(path)) {
    const size = statSync(path).size;
    if (size > MAX_DOCUMENT_BYTES) return s.result([`${path}: a whole JSON session of ${size} bytes is not read for the listing`]);
    let v: unknown;
    try {
      v = JSON.parse(readRegularFileSync(path));
    } catch (e) {
      // A one-line file of records is JSONL under a .json name: read it as lines.
      if (!(e instanceof SyntaxError)) throw e;
      v = null;
    }
    if (isObj(v)) {
      s.value(v);
      return s.result();
    }
  }
  const r = scanFileSync(path, s);
  return s.result(r.error === null ? [] : [`${path}: ${r.error}`]);
}
