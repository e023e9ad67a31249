import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HEALTH_CACHE_FILE, HealthCache } from '../../../src/main/health/cache';
import { SessionFilesHealthSource } from '../../../src/main/health/session-files';

/*
 * The health cache shares the session index's folder and its rule: never inside a harness's own
 * folders. A cache folder set there is refused with a sentence, and the rows are built without it.
 */

let base = '';
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'palimpsest-health-cache-'));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

describe('the health cache folder', () => {
  it('is refused inside a harness home (~/.claude), and nothing is written there', () => {
    const home = join(base, 'home');
    const inside = join(home, '.claude', 'cache');
    const cache = HealthCache.open(inside, { home, env: {}, platform: 'linux' });
    expect(cache.problems).toEqual([
      expect.stringMatching(/health cache folder .*\.claude\/cache is inside .*\.claude.*never writes there/),
    ]);
    expect(cache.path).toBeNull();
    cache.save();
    expect(existsSync(inside)).toBe(false);

    // Outside the harnesses' folders: used.
    const outside = HealthCache.open(join(base, 'cache'), { home, env: {}, platform: 'linux' });
    expect(outside.problems).toEqual([]);
    expect(outside.path).toBe(join(base, 'cache', HEALTH_CACHE_FILE));
  });

  it('inside a --root folder: the rows are still built, with the refusal in the notes', async () => {
    const root = join(base, 'claude', 'projects');
    mkdirSync(join(root, '-w'), { recursive: true });
    copyFileSync('fixtures/claude-code/short.jsonl', join(root, '-w', '55604662-cf2a-4331-851a-ec234028f8ca.jsonl'));
    const inside = join(root, 'palimpsest-cache');
    const r = await new SessionFilesHealthSource({
      dir: join(root, '-w'),
      roots: [{ harness: 'claude-code', path: root }],
      cacheDir: inside,
    }).rows();
    expect(r.rows).toHaveLength(1);
    expect(r.built).toBe(1);
    expect(r.notes).toEqual([expect.stringMatching(/is inside .*projects.*never writes there/)]);
    expect(readdirSync(root)).toEqual(['-w']);
  });
});
