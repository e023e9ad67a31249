import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findElectron, missingDisplay } from './binary';

const root = mkdtempSync(join(tmpdir(), 'palimpsest-electron-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('finding the Electron binary without require("electron")', () => {
  it('says why there is none, from path.txt and its dist/ file', () => {
    expect(findElectron(root, {})).toEqual({ missing: expect.stringContaining('no node_modules/electron/path.txt') });
    mkdirSync(join(root, 'node_modules', 'electron', 'dist'), { recursive: true });
    writeFileSync(join(root, 'node_modules', 'electron', 'path.txt'), 'electron');
    expect(findElectron(root, {})).toEqual({ missing: expect.stringContaining('which does not exist') });
    writeFileSync(join(root, 'node_modules', 'electron', 'dist', 'electron'), '');
    expect(findElectron(root, {})).toEqual({ path: join(root, 'node_modules', 'electron', 'dist', 'electron') });
  });

  it('takes ELECTRON_EXEC_PATH first', () => {
    const exe = join(root, 'my-electron');
    writeFileSync(exe, '');
    expect(findElectron(root, { ELECTRON_EXEC_PATH: exe })).toEqual({ path: exe });
    expect(findElectron(root, { ELECTRON_EXEC_PATH: join(root, 'nope') })).toEqual({ missing: expect.stringContaining('does not exist') });
  });

  it('needs a display on Linux only', () => {
    expect(missingDisplay({}, 'linux')).toMatch(/xvfb-run/);
    expect(missingDisplay({ DISPLAY: ':99' }, 'linux')).toBeNull();
    expect(missingDisplay({}, 'darwin')).toBeNull();
  });
});
