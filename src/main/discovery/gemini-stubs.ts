import { geminiStubSessionId } from '../dialects/gemini-stub';
import { readRegularFileSync } from '../files/open-regular';
import { headSessionId } from './head-session-id';

/** A stub holds a metadata line and the opening context: a file larger than this is not one. */
const MAX_STUB_BYTES = 1024 * 1024;

/**
 * Gemini CLI chats of one `chats/` folder that are `--resume` stubs (../dialects/gemini-stub.ts),
 * each with the session file it belongs to: the newest other file under the same session id that is
 * not a stub. Only files sharing their name's id suffix with another are read (`paths` in name
 * order); a lone stub-like file is a new chat without a prompt yet and stays a session.
 */
export function geminiStubs(paths: readonly string[], size: (path: string) => number): Map<string, string> {
  const byShort = new Map<string, string[]>();
  for (const p of paths) {
    const short = /-([^-]+)\.jsonl?$/.exec(p)?.[1];
    if (short === undefined) continue;
    const group = byShort.get(short);
    if (group) group.push(p);
    else byShort.set(short, [p]);
  }
  const out = new Map<string, string>();
  for (const group of byShort.values()) {
    if (group.length < 2) continue;
    const stubs = new Map<string, string>();
    for (const p of group) {
      const id = size(p) <= MAX_STUB_BYTES ? stubId(p) : null;
      if (id !== null) stubs.set(p, id);
    }
    for (const [stub, id] of stubs) {
      const owner = group.filter((p) => !stubs.has(p) && headSessionId(p) === id).pop();
      if (owner !== undefined) out.set(stub, owner);
    }
  }
  return out;
}

function stubId(path: string): string | null {
  try {
    const records: Record<string, unknown>[] = [];
    for (const line of readRegularFileSync(path).split('\n')) {
      if (line.trim() === '') continue;
      const v: unknown = JSON.parse(line);
      if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
      records.push(v as Record<string, unknown>);
    }
    return geminiStubSessionId(records);
  } catch {
    return null;
  }
}
