import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Materialised } from '../types';
import type { OpenCodeSessionInfo } from '../../dialects/opencode/rows';
import { readSources } from '../../dialects/opencode/sources';

/**
 * An OpenCode session as the load reads it: its records (rows.ts), one JSON line each, written to
 * a private temporary folder, so that the reader, the line locations and re-reading long texts
 * work as for any session file, and nothing is written where OpenCode keeps its data. The folder
 * goes when the loaded session is disposed.
 */

const when = (ms: number | undefined): string => (ms === undefined ? '' : ` ${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')}`);

function listed(sessions: readonly OpenCodeSessionInfo[]): string {
  const shown = sessions.slice(-20).map((s) => `${s.id}${when(s.updated ?? s.created)}${s.title ? ` "${s.title}"` : ''}`);
  return `${sessions.length > 20 ? `…, ` : ''}${shown.join(', ')}`;
}

export async function materialiseOpenCode(path: string, isDirectory: boolean, session: string | undefined): Promise<Materialised | null> {
  const got = await readSources(path, isDirectory, (sessions) => session ?? (sessions.length === 1 ? (sessions[0]?.id ?? null) : null));
  if (!got) return null;
  const { listing, records } = got;
  if (!records) {
    const notes = listing.notes.length > 0 ? `; ${listing.notes.join('; ')}` : '';
    if (listing.sessions.length === 0) return { error: `${path} holds no OpenCode session${notes}` };
    if (session !== undefined)
      return { error: `${path} has no OpenCode session ${session}; its ${listing.sessions.length} sessions: ${listed(listing.sessions)}` };
    return {
      error: `${path} holds ${listing.sessions.length} OpenCode sessions: pass --session ID with one of ${listed(listing.sessions)}`,
    };
  }
  const dir = await mkdtemp(join(tmpdir(), 'palimpsest-opencode-'));
  const name = records[0]?.opencode === 'session' ? records[0].info.id.replace(/[^\w.-]/g, '_') : 'session';
  const file = join(dir, `${name}.jsonl`);
  try {
    await writeFile(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n', { mode: 0o600 });
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    path: file,
    label: `${path} [session ${records[0]?.opencode === 'session' ? records[0].info.id : '?'}]`,
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}
