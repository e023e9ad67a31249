import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseData, type OpenCodeLayout, type OpenCodeRecord, type OpenCodeSessionInfo } from './rows';

/**
 * OpenCode's JSON storage trees, one JSON file per session, message and part (read in
 * anomalyco/opencode's storage code of each era):
 * - 1.0.x: `storage/session/<projectID>/<sessionID>.json`, `storage/message/<sessionID>/<messageID>.json`,
 *   `storage/part/<messageID>/<partID>.json`;
 * - 0.5.x: `project/<project>/storage/session/info/<sessionID>.json`,
 *   `…/session/message/<sessionID>/<messageID>.json`, `…/session/part/<sessionID>/<messageID>/<partID>.json`.
 * Ids sort by creation (OpenCode's ascending ids), so files are read in name order.
 */

export interface StorageRoot {
  readonly dir: string;
  readonly layout: Exclude<OpenCodeLayout, 'sqlite'>;
}

async function isDir(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null))?.isDirectory() ?? false;
}

async function names(dir: string): Promise<string[]> {
  return (await readdir(dir).catch(() => [] as string[])).sort();
}

async function layoutOf(dir: string): Promise<StorageRoot['layout'] | null> {
  if (await isDir(join(dir, 'session', 'info'))) return 'storage-0.5';
  if ((await isDir(join(dir, 'session'))) && (await isDir(join(dir, 'message')))) return 'storage';
  return null;
}

/** The storage trees at `dir`: the folder itself, its `storage/`, or each `project/<p>/storage/` (OpenCode's data folder). */
export async function storageRoots(dir: string): Promise<StorageRoot[]> {
  const roots: StorageRoot[] = [];
  const candidates = [dir, join(dir, 'storage'), ...(await names(join(dir, 'project'))).map((p) => join(dir, 'project', p, 'storage'))];
  for (const c of candidates) {
    const layout = await layoutOf(c);
    if (layout) roots.push({ dir: c, layout });
  }
  return roots;
}

async function readJson(path: string): Promise<Record<string, unknown> | string> {
  const text = await readFile(path, 'utf8').catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));
  if (text instanceof Error) return `it could not be read (${text.message})`;
  return parseData(text);
}

const jsonFiles = async (dir: string): Promise<string[]> => (await names(dir)).filter((n) => n.endsWith('.json'));
const idOf = (file: string): string => file.slice(0, -'.json'.length);

function info(root: StorageRoot, v: Record<string, unknown>, id: string): OpenCodeSessionInfo {
  const time = typeof v.time === 'object' && v.time !== null ? (v.time as Record<string, unknown>) : {};
  const s = (x: unknown): string | undefined => (typeof x === 'string' && x !== '' ? x : undefined);
  const n = (x: unknown): number | undefined => (typeof x === 'number' ? x : undefined);
  return {
    id: s(v.id) ?? id,
    layout: root.layout,
    where: root.dir,
    title: s(v.title),
    directory: s(v.directory),
    version: s(v.version),
    parentID: s(v.parentID),
    created: n(time.created),
    updated: n(time.updated),
  };
}

/** Each session info file of a tree: its path and id. */
async function sessionFiles(root: StorageRoot): Promise<{ path: string; id: string }[]> {
  if (root.layout === 'storage-0.5')
    return (await jsonFiles(join(root.dir, 'session', 'info'))).map((f) => ({ path: join(root.dir, 'session', 'info', f), id: idOf(f) }));
  const out: { path: string; id: string }[] = [];
  for (const project of await names(join(root.dir, 'session')))
    for (const f of await jsonFiles(join(root.dir, 'session', project)))
      out.push({ path: join(root.dir, 'session', project, f), id: idOf(f) });
  return out;
}

export async function treeSessions(root: StorageRoot): Promise<OpenCodeSessionInfo[]> {
  const out: OpenCodeSessionInfo[] = [];
  for (const f of await sessionFiles(root)) {
    const v = await readJson(f.path);
    out.push(typeof v === 'string' ? { id: f.id, layout: root.layout, where: root.dir } : info(root, v, f.id));
  }
  return out;
}

/** The records of one session of a tree, messages in id order, each followed by its parts. */
export async function treeRecords(root: StorageRoot, session: OpenCodeSessionInfo): Promise<OpenCodeRecord[]> {
  const out: OpenCodeRecord[] = [{ opencode: 'session', info: session }];
  const messageDir =
    root.layout === 'storage-0.5' ? join(root.dir, 'session', 'message', session.id) : join(root.dir, 'message', session.id);
  for (const f of await jsonFiles(messageDir)) {
    const id = idOf(f);
    const from = join(messageDir, f);
    const data = await readJson(from);
    if (typeof data === 'string') out.push({ opencode: 'bad', from, error: data });
    else out.push({ opencode: 'message', id, from, info: { ...data, id: typeof data.id === 'string' ? data.id : id } });
    const partDir = root.layout === 'storage-0.5' ? join(root.dir, 'session', 'part', session.id, id) : join(root.dir, 'part', id);
    for (const p of await jsonFiles(partDir)) {
      const pfrom = join(partDir, p);
      const part = await readJson(pfrom);
      if (typeof part === 'string') out.push({ opencode: 'bad', from: pfrom, error: part });
      else
        out.push({
          opencode: 'part',
          id: idOf(p),
          messageID: id,
          from: pfrom,
          part: { ...part, id: typeof part.id === 'string' ? part.id : idOf(p) },
        });
    }
  }
  return out;
}
