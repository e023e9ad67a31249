import type { DiscoveredSession, Discovery, LibraryRoot } from '../../shared/api/library-contract';
import { MAX_DISCOVERED } from '../../shared/api/library-contract';
import type { Discovery as MachineDiscovery } from '../discovery/discover';
import type { SessionSummary } from '../discovery/types';
import type { FolderScan, FolderSession } from './folder-scan';

/** The library's listing in the contract's shape: discovery's and folder scans' summaries, newest first. */

const MAX_PROBLEMS = 200;

export interface FolderListing {
  readonly path: string;
  readonly source: string;
  readonly scan: FolderScan;
}

function row(s: SessionSummary | FolderSession, origin: DiscoveredSession['origin'], root: string): DiscoveredSession {
  return {
    path: s.path,
    harness: s.harness,
    origin,
    root,
    id: s.id,
    project: s.project,
    title: s.title,
    startedAt: s.startedAt,
    endedAt: s.endedAt,
    modifiedAt: new Date(s.mtimeMs).toISOString(),
    bytes: s.bytes,
    files: s.files,
    requests: s.requests,
    compactions: s.compactions,
    model: s.model,
    harnessVersion: s.harnessVersion,
    badLines: s.badLines,
    problems: [...s.problems],
  };
}

/** The folder a discovered session was found under: the longest root that holds it. */
function rootOf(path: string, roots: readonly string[]): string {
  let best = '';
  for (const r of roots) if (path.startsWith(r) && r.length > best.length) best = r;
  return best;
}

const newest = (a: DiscoveredSession, b: DiscoveredSession): number => {
  const x = a.startedAt ?? a.modifiedAt;
  const y = b.startedAt ?? b.modifiedAt;
  return x === y ? a.path.localeCompare(b.path) : x < y ? 1 : -1;
};

export function listing(machine: MachineDiscovery | null, folders: readonly FolderListing[], at: Date): Discovery {
  const roots: LibraryRoot[] = [];
  const problems: string[] = [];
  const byPath = new Map<string, DiscoveredSession>();
  if (machine) {
    const paths = machine.roots.map((r) => r.path);
    for (const r of machine.roots)
      roots.push({ harness: r.harness, path: r.path, source: r.source, exists: r.exists, sessions: r.sessions });
    for (const s of machine.sessions) byPath.set(s.path, row(s, 'machine', rootOf(s.path, paths)));
    problems.push(...machine.problems, ...machine.index.problems);
  }
  for (const f of folders) {
    roots.push({ harness: null, path: f.path, source: f.source, exists: f.scan.exists, sessions: f.scan.sessions.length });
    problems.push(...f.scan.problems);
    // A session both in a harness's folder and in a given folder is listed once, as the harness's.
    for (const s of f.scan.sessions) if (!byPath.has(s.path)) byPath.set(s.path, row(s, 'folder', f.path));
  }
  const sessions = [...byPath.values()].sort(newest);
  return {
    sessions: sessions.slice(0, MAX_DISCOVERED),
    roots,
    problems: problems.slice(0, MAX_PROBLEMS),
    truncated: sessions.length > MAX_DISCOVERED,
    at: at.toISOString(),
  };
}
