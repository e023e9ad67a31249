import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readDatabase } from '../../../../src/main/dialects/opencode/database';
import { snapshotDatabase } from '../../../../src/main/dialects/opencode/snapshot';

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

let holder: ChildProcess | null = null;
const dirs: string[] = [];
afterEach(() => {
  holder?.kill();
  holder = null;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** python3 opens the database in WAL mode, writes a session only to the WAL, and keeps it open. */
async function holdOpen(db: string): Promise<void> {
  const script = `
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1])
c.execute('pragma journal_mode=wal')
c.execute('pragma wal_autocheckpoint=0')
c.execute("insert into session (id, project_id, slug, directory, title, version, time_created, time_updated) values ('ses_walonly','prj_1','w','/w','only in the WAL','1.17.3-aiand.1',1,2)")
c.commit()
print('ready', flush=True)
time.sleep(60)
`;
  holder = spawn('python3', ['-c', script, db], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    holder?.stdout?.once('data', () => resolve());
    holder?.once('exit', (code) => reject(new Error(`python3 exited with ${code}`)));
  });
}

describe('reading an OpenCode database through a private snapshot', () => {
  it('leaves the folder as it was, sees rows only in the WAL, and removes its copy', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oc-src-'));
    dirs.push(dir);
    const db = join(dir, 'opencode.db');
    copyFileSync(FIXTURE, db);
    await holdOpen(db);
    expect(existsSync(`${db}-wal`)).toBe(true);
    const before = files(dir);
    const got = await readDatabase(db, () => 'ses_walonly');
    expect(files(dir)).toEqual(before);
    expect(got.kind).toBe('opencode');
    expect(got.sessions.map((s) => s.id)).toContain('ses_walonly');
    expect(got.sessions.find((s) => s.id === 'ses_walonly')?.version).toBe('1.17.3-aiand.1');
    expect(got.records?.[0]).toMatchObject({ opencode: 'session', info: { id: 'ses_walonly' } });

    const snap = await snapshotDatabase(db);
    expect(existsSync(snap.path)).toBe(true);
    await snap.dispose();
    await snap.dispose();
    expect(existsSync(snap.path)).toBe(false);
    expect(files(dir)).toEqual(before);
  }, 20_000);

  it('recognises the database of the Go program of the same name and reads nothing from it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oc-go-'));
    dirs.push(dir);
    const db = join(dir, 'opencode.db');
    const py = spawn('python3', [
      '-c',
      "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.executescript('create table sessions (id text); create table messages (id text); create table files (id text);'); c.commit()",
      db,
    ]);
    await new Promise((r) => py.once('exit', r));
    const got = await readDatabase(db, () => null);
    expect(got).toEqual({ kind: 'go-opencode', sessions: [], records: null });
  });
});
