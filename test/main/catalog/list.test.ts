import { copyFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/main/catalog/db';
import { listSessions, type ListOptions } from '../../../src/main/catalog/list';
import type { SessionSummary } from '../../../src/main/discovery/types';

/*
 * OpenCode sessions through the session index: the real fixture database in a fake XDG data
 * folder. Its listing is kept while the database's size and mtime are those it was listed at, so
 * a change that keeps both (made here on purpose) is not seen; one that changes them is.
 */

let base = '';
let data = '';
let options: ListOptions = {};

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'palimpsest-list-oc-'));
  data = join(base, 'xdg', 'opencode');
  mkdirSync(data, { recursive: true });
  mkdirSync(join(base, 'home'));
  copyFileSync('fixtures/opencode/opencode.db', join(data, 'opencode.db'));
  // A whole second, so that retitle() can put it back exactly.
  utimesSync(join(data, 'opencode.db'), 1_700_000_000, 1_700_000_000);
  options = {
    harnesses: ['opencode'],
    env: { XDG_DATA_HOME: join(base, 'xdg'), PALIMPSEST_CACHE_DIR: join(base, 'cache') },
    home: join(base, 'home'),
  };
});

afterEach(() => rmSync(base, { recursive: true, force: true }));

const titles = (ss: readonly SessionSummary[]) => ss.map((s) => [s.id, s.title, s.cached]);

/** Renames a session in the database, then puts the file's mtime back (its size does not change). */
function retitle(title: string, keepStamp: boolean): void {
  const file = join(data, 'opencode.db');
  const was = statSync(file);
  expect(was.mtimeMs).toBe(1_700_000_000_000);
  const db = openDatabase(file);
  db.prepare("UPDATE session SET title = ? WHERE id = 'ses_basic'").run(title);
  db.close();
  utimesSync(file, 1_700_000_000, keepStamp ? 1_700_000_000 : 1_700_000_005);
  expect(statSync(file).size).toBe(was.size);
}

describe('OpenCode sessions through the session index', () => {
  it('keeps a database’s listing while its size and mtime stand, and lists it again when they change', async () => {
    const first = await listSessions(options);
    expect(first.problems).toEqual([]);
    expect(titles(first.sessions)).toEqual([
      ['ses_compact', 'Refactor the parser', false],
      ['ses_basic', 'Summarise the README', false],
    ]);
    expect(first.index).toMatchObject({ hits: 0, written: true });

    const second = await listSessions(options);
    expect(titles(second.sessions)).toEqual([
      ['ses_compact', 'Refactor the parser', true],
      ['ses_basic', 'Summarise the README', true],
    ]);
    expect(second.index).toMatchObject({ hits: 2, scanned: 0, written: false });
    const strip = (ss: readonly SessionSummary[]) => ss.map(({ cached: _c, ...rest }) => rest);
    expect(strip(second.sessions)).toEqual(strip(first.sessions));

    // Changed under the same stamp: the kept listing is what comes back (the database was not read).
    retitle('Renamed in place', true);
    expect(titles((await listSessions(options)).sessions)).toContainEqual(['ses_basic', 'Summarise the README', true]);

    // A new mtime: listed again.
    retitle('Renamed again', false);
    const fourth = await listSessions(options);
    expect(titles(fourth.sessions)).toContainEqual(['ses_basic', 'Renamed again', false]);
    expect(fourth.index).toMatchObject({ hits: 0, written: true });
  });

  it('lists a data folder with a storage tree every time (its JSON files are not stamped)', async () => {
    cpSync('fixtures/opencode/storage-0.5/project', join(data, 'project'), { recursive: true });
    await listSessions(options);
    const again = await listSessions(options);
    expect(again.sessions).toHaveLength(2);
    expect(again.sessions.every((s) => !s.cached)).toBe(true);
  });

  it('forgets the listing of a data folder that is gone', async () => {
    await listSessions(options);
    rmSync(join(data, 'opencode.db'));
    const d = await listSessions(options);
    expect(d.sessions).toEqual([]);
    const db = openDatabase(join(base, 'cache', 'index.db'));
    expect(db.prepare("SELECT count(*) AS n FROM meta WHERE key LIKE 'opencode-listing:%'").get()?.n).toBe(0);
    expect(db.prepare('SELECT count(*) AS n FROM sessions').get()?.n).toBe(0);
    db.close();
  });
});
