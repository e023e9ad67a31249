import { openReadOnly, type ReadOnlyDatabase, type Row } from './binding';
import { parseData, type OpenCodeRecord, type OpenCodeSessionInfo } from './rows';
import { databaseSource } from './in-place';

/**
 * OpenCode's SQLite database (`opencode.db`, `opencode-stable.db`, `opencode-<channel>.db`;
 * anomalyco/opencode packages/opencode/src/session/session.sql.ts): tables `session` (one row per
 * session, columns), `message` and `part` (`data`: the message's or part's JSON without its ids).
 * Only those three tables are read: the database also holds login tokens (`account`), which are
 * never selected. Read in place when no WAL holds rows, else from a private snapshot (in-place.ts).
 */

/** What a SQLite file turned out to be. */
export type DatabaseKind = 'opencode' | 'go-opencode' | 'other';

export const GO_OPENCODE_NOTE =
  'is the database of the Go program also called opencode (opencode-ai/opencode, later Crush: tables sessions, messages, files), not of OpenCode (anomalyco/opencode); Palimpsest does not read it';

function tables(db: ReadOnlyDatabase): Set<string> {
  return new Set(db.all("select name from sqlite_master where type = 'table'").map((r) => String(r.name)));
}

export function kindOf(names: ReadonlySet<string>): DatabaseKind {
  if (names.has('session') && names.has('message') && names.has('part')) return 'opencode';
  if (names.has('sessions') && names.has('messages') && (names.has('files') || names.has('goose_db_version'))) return 'go-opencode';
  return 'other';
}

const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : undefined);
const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

function sessionInfo(r: Row, where: string): OpenCodeSessionInfo {
  return {
    id: String(r.id),
    layout: 'sqlite',
    where,
    title: text(r.title),
    directory: text(r.directory),
    version: text(r.version),
    parentID: text(r.parent_id),
    created: num(r.time_created),
    updated: num(r.time_updated),
  };
}

/** The database's sessions and, when `read` names one, its records. */
export interface DatabaseRead {
  readonly kind: DatabaseKind;
  readonly sessions: readonly OpenCodeSessionInfo[];
  readonly records: readonly OpenCodeRecord[] | null;
}

const SESSION_COLUMNS = ['id', 'title', 'directory', 'version', 'parent_id', 'time_created', 'time_updated'];

/**
 * Reads the database at `path` in place or through a snapshot (in-place.ts); a read in place
 * that saw the file change is made again from a snapshot. `read`: the id of the session whose
 * messages and parts to read, or a function choosing it from the listing (null: only list).
 */
export async function readDatabase(path: string, read: (sessions: readonly OpenCodeSessionInfo[]) => string | null): Promise<DatabaseRead> {
  const first = await readFrom(path, read, false);
  return first ?? ((await readFrom(path, read, true)) as DatabaseRead);
}

/** Null: read in place, and the file changed meanwhile. */
async function readFrom(
  path: string,
  read: (sessions: readonly OpenCodeSessionInfo[]) => string | null,
  copy: boolean,
): Promise<DatabaseRead | null> {
  const src = await databaseSource(path, copy);
  try {
    const got = readOpen(src.path, path, read);
    return (await src.unchanged()) ? got : null;
  } finally {
    await src.dispose();
  }
}

function readOpen(open: string, path: string, read: (sessions: readonly OpenCodeSessionInfo[]) => string | null): DatabaseRead {
  const db = openReadOnly(open);
  try {
    const kind = kindOf(tables(db));
    if (kind !== 'opencode') return { kind, sessions: [], records: null };
    const have = new Set(db.all("select name from pragma_table_info('session')").map((r) => String(r.name)));
    const cols = SESSION_COLUMNS.filter((c) => have.has(c));
    const counts = messageCounts(db);
    const sessions = db
      .all(`select ${cols.join(', ')} from session order by time_created, id`)
      .map((r) => ({ ...sessionInfo(r, path), ...counts.get(String(r.id)) }));
    const chosen = read(sessions);
    const info = sessions.find((s) => s.id === chosen);
    if (!info) return { kind, sessions, records: null };
    return { kind, sessions, records: sessionRecords(db, info) };
  } finally {
    db.close();
  }
}

/**
 * Per session, its assistant messages and compaction summaries, from the `message` table alone
 * (small beside `part`, which holds the outputs): what `ls` shows without reading any part.
 */
function messageCounts(db: ReadOnlyDatabase): Map<string, { requests: number; compactions: number }> {
  const rows = db.all(
    `select session_id as id,
       sum(json_valid(data) and json_extract(data, '$.role') = 'assistant') as requests,
       sum(json_valid(data) and json_extract(data, '$.role') = 'assistant' and json_extract(data, '$.summary') = 1) as compactions
     from message group by session_id`,
  );
  return new Map(rows.map((r) => [String(r.id), { requests: num(r.requests) ?? 0, compactions: num(r.compactions) ?? 0 }]));
}

function sessionRecords(db: ReadOnlyDatabase, info: OpenCodeSessionInfo): OpenCodeRecord[] {
  const out: OpenCodeRecord[] = [{ opencode: 'session', info }];
  const parts = new Map<string, Row[]>();
  for (const p of db.all('select id, message_id, data from part where session_id = ? order by message_id, id', info.id)) {
    const key = String(p.message_id);
    let list = parts.get(key);
    if (!list) parts.set(key, (list = []));
    list.push(p);
  }
  for (const m of db.all('select id, data from message where session_id = ? order by time_created, id', info.id)) {
    const id = String(m.id);
    const data = parseData(m.data);
    if (typeof data === 'string') out.push({ opencode: 'bad', from: `message ${id}`, error: data });
    else out.push({ opencode: 'message', id, from: `message ${id}`, info: { ...data, id, sessionID: info.id } });
    for (const p of parts.get(id) ?? []) {
      const pid = String(p.id);
      const part = parseData(p.data);
      if (typeof part === 'string') out.push({ opencode: 'bad', from: `part ${pid}`, error: part });
      else
        out.push({
          opencode: 'part',
          id: pid,
          messageID: id,
          from: `part ${pid}`,
          part: { ...part, id: pid, messageID: id, sessionID: info.id },
        });
    }
  }
  return out;
}
