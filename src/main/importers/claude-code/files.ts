import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The companion files of a Claude Code session: `<dir>/<sessionId>/subagents/agent-*.jsonl`,
 * subagents first and summarizers (`agent-acompact-*`) after them, each group by name. A
 * directory `<sessionId>/` is claimed when `<sessionId>.jsonl` sits next to it.
 */
export async function claudeSessionFiles(path: string, isDirectory: boolean): Promise<string[] | null> {
  if (isDirectory) {
    const dir = path.replace(/[\\/]+$/, '');
    const main = `${dir}.jsonl`;
    const info = await stat(main).catch(() => null);
    if (!info?.isFile()) return null;
    return [main, ...(await subagentFiles(dir))];
  }
  if (!path.endsWith('.jsonl') || /[\\/]subagents[\\/][^\\/]+\.jsonl$/.test(path)) return [];
  return subagentFiles(path.slice(0, -'.jsonl'.length));
}

async function subagentFiles(sessionDir: string): Promise<string[]> {
  const dir = join(sessionDir, 'subagents');
  const names = await readdir(dir).catch(() => [] as string[]);
  const agents = names.filter((n) => /^agent-.+\.jsonl$/.test(n)).sort();
  const summarizers = agents.filter((n) => n.startsWith('agent-acompact'));
  return [...agents.filter((n) => !n.startsWith('agent-acompact')), ...summarizers].map((n) => join(dir, n));
}
