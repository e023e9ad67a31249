import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readDatabase } from '../../../../src/main/dialects/opencode/database';
import { databaseSource, immutableUri } from '../../../../src/main/dialects/opencode/in-place';

const FIXTURE = join(__dirname, '../../../../fixtures/opencode/opencode.db');

/** Every file of the folder with its size and modification time. */
function files(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .map((n) => {
      const s = statSync(join(dir, n));
      return `${n} ${s.size} ${s.mtimeMs}`;
    });
}

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A copy of the fixture database in a new folder whose name needs escaping in a URI. */
function copy(): { dir: string; db: string } {
  const root = mkdtempSync(join(tmpdir(), 'oc-inplace-'));
  dirs.push(root);
  const dir = join(root, 'a #b ?c %d');
  mkdirSync(dir);
  const db = join(dir, 'opencode.db');
  copyFileSync(FIXTURE, db);
  return { dir, db };
}

/** python3 writes a session in another process, waiting on no lock (timeout 0). */
function write(db: string, id: string): { status: number | null; stderr: string } {
  const script = `
import sqlite3, sys
c = sqlite3.connect(sys.argv[1], timeout=0)
c.execute('begin exclusive')
c.execute("insert into session (id, project_id, slug, directory, title, version, time_created, time_updated) values (?, 'prj_1', 's', '/w', 't', '1.18.33', 9, 9)", (sys.argv[2],))
c.commit()
`;
  const r = spawnSync('python3', ['-c', script, db, id], { encoding: 'utf8' });
  return { status: r.status, stderr: r.stderr };
}

describe('reading an OpenCode database in place', () => {
  it('escapes what would end a URI path', () => {
    expect(immutableUri('/a #b/?c/%d.db')).toBe('file:/a %23b/%3fc/%25d.db?mode=ro&immutable=1');
    expect(immutableUri('C:\\Users\\x\\opencode.db')).toBe('file:/C:/Users/x/opencode.db?mode=ro&immutable=1');
  });

  it('reads a database without a WAL where it is, writing nothing beside it', async () => {
    const { dir, db } = copy();
    const before = files(dir);
    const src = await databaseSource(db);
    expect(src.inPlace).toBe(true);
    await src.dispose();
    const got = await readDatabase(db, (s) => s[0]?.id ?? null);
    expect(got.kind).toBe('opencode');
    expect(got.sessions.length).toBeGreaterThan(0);
    expect(got.records?.length).toBeGreaterThan(1);
    expect(files(dir)).toEqual(before);
  });

  it('takes no lock a writer in another process would wait on', () => {
    const { dir, db } = copy();
    type Db = { exec(sql: string): void; prepare(sql: string): { all(): unknown[] }; close(): void };
    const Libsql = createRequire(import.meta.url)('libsql') as new (path: string) => Db;
    const reader = new Libsql(immutableUri(db));
    try {
      // A read transaction under way while the other process writes: opened without
      // `immutable=1` it holds a shared lock, and the writer fails with "database is locked".
      reader.exec('begin');
      expect(reader.prepare('select id from part').all().length).toBeGreaterThan(0);
      const w = write(db, 'ses_written_meanwhile');
      expect(w.stderr).toBe('');
      expect(w.status).toBe(0);
    } finally {
      reader.close();
    }
    expect(readdirSync(dir).sort()).toEqual(['opencode.db']);
  });

  it('falls back to a snapshot when the WAL holds rows', async () => {
    const { db } = copy();
    const script = `
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute('pragma journal_mode=wal')
c.execute('pragma wal_autocheckpoint=0')
c.execute("insert into session (id, project_id, slug, directory, title, version, time_created, time_updated) values ('ses_wal', 'prj_1', 's', '/w', 't', '1.18.33', 9, 9)")
c.commit()
import os
os._exit(0)
`;
    expect(spawnSync('python3', ['-c', script, db]).status).toBe(0);
    const src = await databaseSource(db);
    expect(src.inPlace).toBe(false);
    await src.dispose();
    const got = await readDatabase(db, () => null);
    expect(got.sessions.map((s) => s.id)).toContain('ses_wal');
  });
});
