import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { readRegularHead } from '../../files/open-regular';

/**
 * The companion files of a Claude Code session: `<dir>/<sessionId>/subagents/agent-*.jsonl`
 * (2.1.x) and the `<dir>/agent-*.jsonl` beside it whose first line names the session (2.0.x kept
 * subagent transcripts there), subagents first and summarizers (`agent-acompact-*`) after them,
 * each group by name. A directory `<sessionId>/` is claimed when `<sessionId>.jsonl` sits next to it.
 */
export async function claudeSessionFiles(path: string, isDirectory: boolean): Promise<string[] | null> {
  if (isDirectory) {
    const dir = path.replace(/[\\/]+$/, '');
    const main = `${dir}.jsonl`;
    const info = await stat(main).catch(() => null);
    if (!info?.isFile()) return null;
    return [main, ...(await companions(dir))];
  }
  if (!path.endsWith('.jsonl') || /[\\/]subagents[\\/][^\\/]+\.jsonl$/.test(path)) return [];
  // A 2.0.x subagent transcript opened on its own is read alone.
  if (basename(path).startsWith('agent-')) return [];
  return companions(path.slice(0, -'.jsonl'.length));
}

async function companions(sessionDir: string): Promise<string[]> {
  const dir = join(sessionDir, 'subagents');
  const names = await readdir(dir).catch(() => [] as string[]);
  const nested = names.filter((n) => /^agent-.+\.jsonl$/.test(n)).map((n) => join(dir, n));
  const all = [...(await besideSession(sessionDir)), ...nested].sort((a, b) =>
    basename(a) < basename(b) ? -1 : basename(a) > basename(b) ? 1 : 0,
  );
  const summarizer = (p: string): boolean => basename(p).startsWith('agent-acompact');
  return [...all.filter((p) => !summarizer(p)), ...all.filter(summarizer)];
}

/** The 2.0.x subagent files beside session `<dir>/<id>.jsonl`: `<dir>/agent-*.jsonl` naming `id` on their first line. */
async function besideSession(sessionDir: string): Promise<string[]> {
  const dir = dirname(sessionDir);
  const id = basename(sessionDir);
  const names = await readdir(dir).catch(() => [] as string[]);
  const out: string[] = [];
  for (const n of names) {
    if (!/^agent-.+\.jsonl$/.test(n)) continue;
    if ((await sessionIdOf(join(dir, n))) === id) out.push(join(dir, n));
  }
  return out;
}

/** The `sessionId` the file's first 4 KiB name (the first record's), or null; a file that is not regular names none. */
async function sessionIdOf(path: string): Promise<string | null> {
  const head = await readRegularHead(path, 4096).catch(() => null);
  if (!head) return null;
  return /"sessionId":"([^"\\]+)"/.exec(head.toString('utf8'))?.[1] ?? null;
}
