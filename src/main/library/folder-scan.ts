import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { scanSession } from '../discovery/scan';
import type { FileStamp, Harness, ScanResult, SessionCandidate, SessionSummary } from '../discovery/types';
import { walkRoot } from '../discovery/walk';
import { sniffFormat } from './sniff';

/*
 * The sessions in a folder the host was given (or the user picked): unlike a harness's own folder,
 * its layout says nothing about the harness, so every session-like file (`*.jsonl`, `.jsonl.zst`,
 * `.jsonl.zstd`, up to 4 folders down) is sniffed from its first lines and then scanned with that
 * harness's scanner (src/main/discovery). Two layouts are recognised so that their companion files
 * are not listed as sessions of their own: a Rind session folder (`messages.jsonl` with
 * `compactions.jsonl` and `tool_calls.jsonl`) and Claude Code's `<id>/subagents/agent-*.jsonl`
 * beside `<id>.jsonl`.
 */

/** Most session files looked at in one folder; the rest are reported, not scanned. */
export const MAX_FOLDER_FILES = 2000;

const RIND_COMPANIONS = new Set(['compactions.jsonl', 'tool_calls.jsonl']);

export interface FolderSession extends Omit<SessionSummary, 'harness'> {
  /** null: no importer recognises the file. */
  readonly harness: Harness | null;
}

export interface FolderScan {
  readonly exists: boolean;
  readonly sessions: FolderSession[];
  readonly problems: string[];
}

function isClaudeSubagent(path: string): boolean {
  const dir = dirname(path);
  if (basename(dir) !== 'subagents' || !basename(path).startsWith('agent-')) return false;
  const sessionDir = dirname(dir);
  return existsSync(join(dirname(sessionDir), `${basename(sessionDir)}.jsonl`));
}

const unknownScan = (problem: string): ScanResult => ({
  id: null,
  project: null,
  title: null,
  startedAt: null,
  endedAt: null,
  requests: null,
  compactions: null,
  harnessVersion: null,
  model: null,
  badLines: 0,
  problems: [problem],
});

function summary(c: { path: string; files: readonly FileStamp[] }, harness: Harness | null, r: ScanResult): FolderSession {
  let bytes = 0;
  let mtimeMs = 0;
  for (const f of c.files) {
    bytes += f.size;
    if (f.mtimeMs > mtimeMs) mtimeMs = f.mtimeMs;
  }
  return { ...r, harness, path: c.path, bytes, files: c.files.length, mtimeMs, cached: false };
}

/** Lists and scans the sessions under `folder`. Never throws: what cannot be read is in `problems`. */
export async function scanFolder(folder: string): Promise<FolderScan> {
  const walked = walkRoot({ harness: 'palimpsest', path: folder, source: 'folder' });
  const problems = [...walked.problems];
  let files = walked.candidates.flatMap((c) => c.files);
  if (files.length > MAX_FOLDER_FILES) {
    problems.push(`${folder}: ${files.length} session-like files; only the first ${MAX_FOLDER_FILES} are listed.`);
    files = files.slice(0, MAX_FOLDER_FILES);
  }

  // Rind sessions are folders: one candidate per folder holding messages.jsonl.
  const rindDirs = new Map<string, FileStamp[]>();
  for (const f of files) if (basename(f.path) === 'messages.jsonl') rindDirs.set(dirname(f.path), [f]);
  for (const f of files) {
    const group = rindDirs.get(dirname(f.path));
    if (group && RIND_COMPANIONS.has(basename(f.path))) group.push(f);
  }

  const sessions: FolderSession[] = [];
  for (const [dir, group] of rindDirs) {
    const c: SessionCandidate = { harness: 'rind', path: dir, files: group };
    sessions.push(summary(c, 'rind', scanSession(c)));
  }
  for (const f of files) {
    if (rindDirs.has(dirname(f.path)) || isClaudeSubagent(f.path)) continue;
    let harness: Harness | null;
    try {
      const format = await sniffFormat(f.path);
      // An OpenCode session is read from its database or storage folder, never from a file of lines.
      harness = format === 'opencode' ? null : format;
    } catch (err: unknown) {
      problems.push(`${f.path}: cannot be read (${err instanceof Error ? err.message : String(err)})`);
      continue;
    }
    const c = { path: f.path, files: [f] };
    if (harness === null) {
      sessions.push(summary(c, null, unknownScan(`${f.path}: no importer recognises its first lines.`)));
      continue;
    }
    sessions.push(summary(c, harness, scanSession({ harness, path: f.path, files: [f] })));
  }
  return { exists: walked.exists, sessions, problems };
}
