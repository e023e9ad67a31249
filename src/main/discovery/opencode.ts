import { statSync } from 'node:fs';
import { join } from 'node:path';
import { readSources } from '../dialects/opencode/sources';
import type { OpenCodeSessionInfo } from '../dialects/opencode/rows';
import type { SessionCandidate, SessionSummary } from './types';

/**
 * The sessions of an OpenCode data folder, one summary each: a database or a storage tree holds
 * many, so they are listed (through a private copy of each database) rather than scanned, and
 * each is opened as `<database or storage folder> --session <id>`. A database gives each session's
 * request and compaction counts from its messages (database.ts); a storage tree gives none (null).
 * Null when the folder could not be listed (said in `problems`).
 */
export async function listOpenCode(c: SessionCandidate, problems: string[]): Promise<SessionSummary[] | null> {
  let sessions: readonly OpenCodeSessionInfo[];
  try {
    const got = await readSources(c.path, true, () => null);
    sessions = got?.listing.sessions ?? [];
    problems.push(...(got?.listing.notes ?? []));
  } catch (e) {
    problems.push(`${c.path}: the OpenCode sessions could not be listed (${e instanceof Error ? e.message : String(e)})`);
    return null;
  }
  // OpenCode copies its JSON trees into the database when it first runs a version that has one and
  // leaves the trees behind: a session in both is listed once, from the database.
  const inDatabase = new Set(sessions.filter((s) => s.layout === 'sqlite').map((s) => s.id));
  sessions = sessions.filter((s) => s.layout === 'sqlite' || !inDatabase.has(s.id));
  const iso = (ms: number | undefined): string | null => (ms === undefined ? null : new Date(ms).toISOString());
  const sizes = new Map(c.files.map((f) => [f.path, f]));
  return sessions.map((s) => {
    const db = s.layout === 'sqlite' ? sizes.get(s.where) : undefined;
    return {
      harness: 'opencode',
      path: s.where,
      id: s.id,
      project: s.directory ?? null,
      title: s.title ?? null,
      startedAt: iso(s.created),
      endedAt: iso(s.updated),
      requests: s.requests ?? null,
      compactions: s.compactions ?? null,
      harnessVersion: s.version ?? null,
      model: null,
      badLines: 0,
      problems: [],
      bytes: 0,
      files: 1,
      mtimeMs: s.updated ?? db?.mtimeMs ?? 0,
      cached: false,
    };
  });
}

const isThere = (p: string): boolean => {
  try {
    return statSync(p, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return true;
  }
};

/**
 * What the listing of the data folder `c` depends on, to compare with the stamp it was listed at:
 * the size and mtime of each database and its WAL file (a write to a session changes one of them).
 * Null — list it every time — when the folder has no database, or has a storage tree (`storage`,
 * `project`): a tree's session files are not stamped by the walk.
 */
export function listingStamp(c: SessionCandidate): string | null {
  if (c.files.length === 0 || isThere(join(c.path, 'storage')) || isThere(join(c.path, 'project'))) return null;
  return JSON.stringify(c.files.map((f) => [f.path, f.size, f.mtimeMs]));
}
