import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { discoverSessions } from '../../../src/main/discovery/discover';

const FIX = join(__dirname, '../../../fixtures/opencode');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('discovery of OpenCode sessions', () => {
  it('lists each session of the data folder’s database and trees, a session in both once', async () => {
    const xdg = mkdtempSync(join(tmpdir(), 'oc-xdg-'));
    dirs.push(xdg);
    const data = join(xdg, 'opencode');
    mkdirSync(data);
    cpSync(join(FIX, 'opencode.db'), join(data, 'opencode.db'));
    cpSync(join(FIX, 'storage-0.5', 'project'), join(data, 'project'), { recursive: true });
    const d = await discoverSessions({ harnesses: ['opencode'], env: { XDG_DATA_HOME: xdg }, home: xdg });
    expect(d.problems).toEqual([]);
    expect(d.roots).toEqual([{ harness: 'opencode', path: data, source: '$XDG_DATA_HOME', exists: true, sessions: 2 }]);
    expect(d.sessions.map((s) => [s.id, s.path, s.harnessVersion, s.title])).toEqual([
      ['ses_compact', join(data, 'opencode.db'), '1.4.0', 'Refactor the parser'],
      ['ses_basic', join(data, 'opencode.db'), '1.4.0', 'Summarise the README'],
    ]);
    // From the message table: assistant messages and compaction summaries.
    expect(d.sessions.map((s) => [s.id, s.requests, s.compactions])).toEqual([
      ['ses_compact', 5, 2],
      ['ses_basic', 2, 0],
    ]);
  });

  it('looks in ~/.local/share/opencode by default', async () => {
    const home = mkdtempSync(join(tmpdir(), 'oc-home-'));
    dirs.push(home);
    const d = await discoverSessions({ harnesses: ['opencode'], env: {}, home });
    expect(d.roots).toEqual([
      { harness: 'opencode', path: join(home, '.local', 'share', 'opencode'), source: 'default', exists: false, sessions: 0 },
    ]);
  });
});
