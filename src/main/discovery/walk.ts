import { type Dirent, readdirSync, statSync } from 'node:fs';
import { normalize, sep } from 'node:path';
import { kindOf, NotRegularFile } from '../files/open-regular';
import { geminiStubs } from './gemini-stubs';
import type { Root } from './locations';
import type { FileStamp, Harness, SessionCandidate } from './types';
import { headSessionId } from './head-session-id';

/*
 * The sessions under one root, by the harness's own layout (see ./locations.ts for the sources),
 * with the size and mtime of every file — what the index is keyed by. Synchronous on purpose: a
 * listing is a few hundred readdir/stat calls, each far cheaper than a promise round trip through
 * the thread pool. A root or folder that cannot be read is empty (and said so), never an error.
 * Paths are built by concatenation below a root normalised once (path.join normalises its whole
 * result at every call, which cost a cold `ls` more than the stat calls), and a missing file is a
 * stat without an exception.
 *
 * - claude-code: `<root>/<project>/<session>.jsonl`, plus `<root>/<project>/<session>/subagents/
 *   agent-*.jsonl` (2.1.x) and `<root>/<project>/agent-*.jsonl` whose first line names the session
 *   (2.0.x) as files of that session, never sessions of their own (an agent file whose session is
 *   not there is listed alone).
 * - codex: `rollout-*.jsonl` at any depth up to 4 (`YYYY/MM/DD/` under sessions, flat under
 *   archived_sessions).
 * - dsh: `<root>/<project>/<session>/session.jsonl` or `session.jsonl.zstd`.
 * - rind: `<root>/<session>/` holding `messages.jsonl` (with meta.json, compactions.jsonl,
 *   tool_calls.jsonl as its files).
 * - cosh: `<root>/<cwd-hash>/session-*.jsonl`.
 * - palimpsest: `*.jsonl` (and `.jsonl.zst`, `.jsonl.zstd`) up to 4 levels down, or the file given.
 * - opencode: the data folder itself, one candidate for all its databases and storage trees
 *   (./opencode.ts lists the sessions inside).
 */

export interface WalkResult {
  readonly candidates: SessionCandidate[];
  readonly exists: boolean;
  readonly problems: string[];
}

function list(dir: string, problems: string[] | null): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (problems && code !== 'ENOENT' && code !== 'ENOTDIR') problems.push(`${dir}: cannot be listed (${code ?? String(e)})`);
    return [];
  }
}

/**
 * The names in a folder, or null when it is not one or cannot be listed (said in `problems`).
 * Names only, no Dirent per entry: the Claude Code walk stats every file it keeps anyway.
 */
function names(dir: string, problems: string[] | null): string[] | null {
  try {
    return readdirSync(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (problems && code !== 'ENOENT' && code !== 'ENOTDIR') problems.push(`${dir}: cannot be listed (${code ?? String(e)})`);
    return null;
  }
}

function stamp(path: string): FileStamp | null {
  try {
    const s = statSync(path, { throwIfNoEntry: false });
    return s?.isFile() ? { path, size: s.size, mtimeMs: s.mtimeMs } : null;
  } catch {
    return null;
  }
}

/** Names of session files. */
const SESSION_NAME = /\.jsonl(\.zstd?)?$/;

/**
 * Says in `problems` why a session file's path that is not a regular file is skipped: a FIFO or
 * a device (never opened: reading one would wait, or never end) or a loop of symbolic links.
 * Quiet for a folder and for what is not there. Called only for paths stamp() refused, so a
 * listing of regular files pays nothing for it.
 */
function skipped(path: string, problems: string[] | null): void {
  if (!problems) return;
  try {
    const s = statSync(path, { throwIfNoEntry: false });
    const kind = s ? kindOf(s) : null;
    if (kind !== null && kind !== 'a directory') problems.push(`${new NotRegularFile(path, kind).message}; skipped`);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') problems.push(`${path} is a symbolic link loop; skipped`);
  }
}

/**
 * `dir` + separator + `name`: what path.join gives for a folder `dir` that is already normal
 * (normalize(), or made by this function) and a name read from it (never empty, `.`, `..`, nor
 * holding a separator).
 */
function join(dir: string, name: string): string {
  if (dir === '.') return name;
  return dir.endsWith(sep) ? dir + name : dir + sep + name;
}

/** A directory entry that is a file, following symbolic links. */
function isFileEntry(e: Dirent, dir: string): boolean {
  if (e.isFile()) return true;
  if (!e.isSymbolicLink()) return false;
  return stamp(join(dir, e.name)) !== null;
}

function isDirEntry(e: Dirent, dir: string): boolean {
  if (e.isDirectory()) return true;
  if (!e.isSymbolicLink()) return false;
  try {
    return statSync(join(dir, e.name), { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

const byName = (a: Dirent, b: Dirent): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

export function walkRoot(given: Root): WalkResult {
  const problems: string[] = [];
  const top = statSafe(given.path);
  if (!top) return { candidates: [], exists: false, problems };
  const root: Root = { ...given, path: normalize(given.path) };
  const candidates: SessionCandidate[] = [];
  const add = (harness: Harness, path: string, files: (FileStamp | null)[]): void => {
    const fs = files.filter((f): f is FileStamp => f !== null);
    if (fs.length > 0) candidates.push({ harness, path, files: fs });
  };
  if (top.isFile()) {
    // `--root palimpsest=session.jsonl`, or any harness given one file.
    add(root.harness, given.path, [stamp(given.path)]);
    return { candidates, exists: true, problems };
  }
  switch (root.harness) {
    case 'claude-code':
      // Names, sorted by code unit (what byName does); a project entry that is not a folder is
      // not listable (ENOTDIR) and skipped, a session file is one that stats as a file.
      for (const p of names(root.path, problems)?.sort() ?? []) {
        const dir = join(root.path, p);
        const entries = names(dir, problems)?.sort();
        if (!entries) continue;
        const here = new Set(entries);
        const sessions = new Map<string, FileStamp[]>();
        const agents: FileStamp[] = [];
        for (const name of entries) {
          if (!name.endsWith('.jsonl')) continue;
          const f = stamp(join(dir, name));
          if (!f) {
            skipped(join(dir, name), problems);
            continue;
          }
          if (name.startsWith('agent-')) {
            // Claude Code 2.0 kept subagent transcripts beside the sessions: files of their parent.
            agents.push(f);
            continue;
          }
          const id = name.slice(0, -'.jsonl'.length);
          const files = [f];
          if (here.has(id)) {
            const sub = join(join(dir, id), 'subagents');
            for (const a of names(sub, null)?.sort() ?? []) {
              if (!a.startsWith('agent-') || !a.endsWith('.jsonl')) continue;
              const s = stamp(join(sub, a));
              if (s) files.push(s);
              else skipped(join(sub, a), problems);
            }
          }
          sessions.set(id, files);
        }
        for (const a of agents) {
          const parent = sessions.get(headSessionId(a.path) ?? '');
          if (parent) parent.push(a);
          else sessions.set(a.path.slice(dir.length + 1, -'.jsonl'.length), [a]); // no parent here: a session of its own
        }
        for (const [id, files] of sessions) add('claude-code', join(dir, `${id}.jsonl`), files);
      }
      break;
    case 'codex':
      deep(root.path, 4, problems, (dir, e) => {
        if (/^rollout-.*\.jsonl$/.test(e.name)) add('codex', join(dir, e.name), [stamp(join(dir, e.name))]);
      });
      break;
    case 'dsh':
      for (const p of list(root.path, problems).sort(byName)) {
        if (!isDirEntry(p, root.path)) continue;
        const dir = join(root.path, p.name);
        for (const s of list(dir, problems).sort(byName)) {
          if (!isDirEntry(s, dir)) continue;
          const sdir = join(dir, s.name);
          const names = ['session.jsonl.zstd', 'session.jsonl'];
          let f: FileStamp | null = null;
          for (const name of names) if ((f = stamp(join(sdir, name)))) break;
          if (f) add('dsh', f.path, [f]);
          else for (const name of names) skipped(join(sdir, name), problems);
        }
      }
      break;
    case 'rind':
      for (const s of list(root.path, problems).sort(byName)) {
        if (!isDirEntry(s, root.path)) continue;
        const dir = join(root.path, s.name);
        const messages = stamp(join(dir, 'messages.jsonl'));
        if (!messages) {
          skipped(join(dir, 'messages.jsonl'), problems);
          continue;
        }
        add('rind', dir, [messages, ...['meta.json', 'compactions.jsonl', 'tool_calls.jsonl'].map((n) => stamp(join(dir, n)))]);
      }
      break;
    case 'cosh':
      for (const h of list(root.path, problems).sort(byName)) {
        if (!isDirEntry(h, root.path)) continue;
        const dir = join(root.path, h.name);
        for (const e of list(dir, problems).sort(byName)) {
          if (!/^session-.*\.jsonl$/.test(e.name)) continue;
          if (isFileEntry(e, dir)) add('cosh', join(dir, e.name), [stamp(join(dir, e.name))]);
          else skipped(join(dir, e.name), problems);
        }
      }
      break;
    case 'gemini-cli':
      for (const p of list(root.path, problems).sort(byName)) {
        if (!isDirEntry(p, root.path)) continue;
        walkGeminiChats(join(join(root.path, p.name), 'chats'), add, problems);
      }
      break;
    case 'opencode': {
      // The files that change when a session does: the databases with their WAL, and the tree folders.
      const files = (names(root.path, problems) ?? [])
        .filter((n) => /^opencode(-[A-Za-z0-9._-]+)?\.db(-wal)?$/.test(n))
        .sort()
        .map((n) => stamp(join(root.path, n)));
      if (files.length > 0 || statSafe(join(root.path, 'storage')) || statSafe(join(root.path, 'project')))
        candidates.push({ harness: 'opencode', path: root.path, files: files.filter((f): f is FileStamp => f !== null) });
      break;
    }
    case 'palimpsest':
      deep(root.path, 4, problems, (dir, e) => {
        if (/\.jsonl(\.zstd?)?$/.test(e.name)) add('palimpsest', join(dir, e.name), [stamp(join(dir, e.name))]);
      });
      break;
    default:
  }
  return { candidates, exists: true, problems };
}

const GEMINI_CHAT = /\.jsonl?$/;

/**
 * One project's `chats/` of Gemini CLI: each `session-<time>-<id8>.json(l)` is a session; the
 * files of a folder `<parentSessionId>/` are its subagents, joined to the newest session whose
 * name ends in the folder's first 8 characters (chatRecordingService.ts names both so), or listed
 * on their own when no session there has that id.
 */
function walkGeminiChats(
  dir: string,
  add: (harness: Harness, path: string, files: (FileStamp | null)[]) => void,
  problems: string[],
): void {
  const entries = names(dir, null);
  if (entries === null) return;
  const sessions = new Map<string, (FileStamp | null)[]>();
  const byShort = new Map<string, string>();
  const folders: string[] = [];
  for (const name of [...entries].sort()) {
    const path = join(dir, name);
    const s = statSafe(path);
    if (s?.isDirectory()) {
      folders.push(name);
      continue;
    }
    if (!name.startsWith('session-') || !GEMINI_CHAT.test(name)) continue;
    const f = stamp(path);
    if (!f) {
      skipped(path, problems);
      continue;
    }
    sessions.set(path, [f]);
    const short = /-([^-]+)\.jsonl?$/.exec(name)?.[1];
    if (short !== undefined) byShort.set(short, path);
  }
  // A `--resume` stub is listed with the session it belongs to, not as a session of its own.
  for (const [stub, owner] of geminiStubs([...sessions.keys()], (p) => Number(statSafe(p)?.size ?? 0))) {
    sessions.get(owner)?.push(...(sessions.get(stub) ?? []));
    sessions.delete(stub);
    for (const [short, p] of byShort) if (p === stub) byShort.set(short, owner);
  }
  for (const folder of folders) {
    const sub = join(dir, folder);
    const files = (names(sub, null) ?? [])
      .filter((n) => GEMINI_CHAT.test(n))
      .sort()
      .map((n) => stamp(join(sub, n)));
    const parent = byShort.get(folder.slice(0, 8));
    const joined = parent !== undefined ? sessions.get(parent) : undefined;
    if (joined) joined.push(...files);
    else for (const f of files) if (f) sessions.set(f.path, [f]);
  }
  for (const [path, files] of sessions) add('gemini-cli', path, files);
}

function statSafe(path: string): ReturnType<typeof statSync> | null {
  try {
    return statSync(path, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}

/** Files up to `depth` folders down, in name order; hidden folders and node_modules skipped. */
function deep(dir: string, depth: number, problems: string[], onFile: (dir: string, e: Dirent) => void): void {
  for (const e of list(dir, problems).sort(byName)) {
    if (isDirEntry(e, dir)) {
      if (depth > 0 && !e.name.startsWith('.') && e.name !== 'node_modules') deep(join(dir, e.name), depth - 1, problems, onFile);
    } else if (isFileEntry(e, dir)) onFile(dir, e);
    else if (SESSION_NAME.test(e.name)) skipped(join(dir, e.name), problems);
  }
}
