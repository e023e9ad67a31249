import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { indexDir } from '../../../src/main/discovery/cache-folder';
import { defaultRoots, parseRootFlag, resolveRoots } from '../../../src/main/discovery/locations';

const home = '/home/ada';
const paths = (env: Record<string, string>, platform: NodeJS.Platform = 'linux') =>
  defaultRoots({ home, env, platform }).map((r) => [r.harness, r.path, r.source]);

describe('default locations', () => {
  it("are each harness's own defaults", () => {
    expect(paths({})).toEqual([
      ['claude-code', '/home/ada/.claude/projects', 'default'],
      ['claude-code', '/home/ada/.config/claude/projects', 'default'],
      ['codex', '/home/ada/.codex/sessions', 'default'],
      ['codex', '/home/ada/.codex/archived_sessions', 'default'],
      ['dsh', '/home/ada/.dsh/sessions', 'default'],
      ['rind', '/home/ada/.rind/sessions', 'default'],
      ['cosh', '/home/ada/.local/share/cosh/sessions', 'default'],
      ['gemini-cli', '/home/ada/.gemini/tmp', 'default'],
      ['opencode', '/home/ada/.local/share/opencode', 'default'],
    ]);
  });

  it('follow the environment overrides; empty ones are unset; ~ is the home', () => {
    expect(
      paths({
        CLAUDE_CONFIG_DIR: '~/work-claude, /srv/claude',
        CODEX_HOME: '/x/codex',
        DSH_HOME: ' ',
        RIND_HOME: '/r',
        COSH_DATA_DIR: '',
        GEMINI_CLI_HOME: '/g',
      }),
    ).toEqual([
      ['claude-code', '/home/ada/work-claude/projects', '$CLAUDE_CONFIG_DIR'],
      ['claude-code', '/srv/claude/projects', '$CLAUDE_CONFIG_DIR'],
      ['codex', '/x/codex/sessions', '$CODEX_HOME'],
      ['codex', '/x/codex/archived_sessions', '$CODEX_HOME'],
      ['dsh', '/home/ada/.dsh/sessions', 'default'],
      ['rind', '/r/sessions', '$RIND_HOME'],
      ['cosh', '/home/ada/.local/share/cosh/sessions', 'default'],
      ['gemini-cli', '/g/.gemini/tmp', '$GEMINI_CLI_HOME'],
      ['opencode', '/home/ada/.local/share/opencode', 'default'],
    ]);
  });

  it('put cosh where ProjectDirs puts its data on each platform', () => {
    const cosh = (env: Record<string, string>, platform: NodeJS.Platform) =>
      defaultRoots({ home, env, platform }).find((r) => r.harness === 'cosh')?.path;
    expect(cosh({ XDG_DATA_HOME: '/data' }, 'linux')).toBe('/data/cosh/sessions');
    expect(cosh({ XDG_DATA_HOME: 'relative' }, 'linux')).toBe('/home/ada/.local/share/cosh/sessions');
    expect(cosh({}, 'darwin')).toBe('/home/ada/Library/Application Support/cosh/sessions');
    expect(cosh({ APPDATA: '/appdata' }, 'win32')).toBe(join('/appdata', 'cosh', 'data', 'sessions'));
    expect(cosh({ COSH_DATA_DIR: '/c', XDG_DATA_HOME: '/data' }, 'linux')).toBe('/c/sessions');
  });
});

describe('--root', () => {
  it('parses HARNESS=PATH, with the usual names and aliases, and refuses anything else', () => {
    expect(parseRootFlag('claude=/a=b')).toEqual({ harness: 'claude-code', path: '/a=b' });
    expect(parseRootFlag('deepseek-harness=/d')).toEqual({ harness: 'dsh', path: '/d' });
    expect(() => parseRootFlag('/just/a/path')).toThrow(/HARNESS=PATH/);
    expect(parseRootFlag('gemini=/g')).toEqual({ harness: 'gemini-cli', path: '/g' });
    expect(parseRootFlag('opencode=/o')).toEqual({ harness: 'opencode', path: '/o' });
    expect(() => parseRootFlag('nope=/n')).toThrow(/one of claude-code, codex, dsh, rind, cosh, palimpsest, gemini-cli, opencode/);
    expect(() => parseRootFlag('codex=')).toThrow(/HARNESS=PATH/);
  });

  it("replaces that harness's defaults and completes a harness home to its session folder when it has one", async () => {
    const base = await mkdtemp(join(tmpdir(), 'palimpsest-roots-'));
    await mkdir(join(base, 'cc', 'projects'), { recursive: true });
    await mkdir(join(base, 'cx', 'sessions'), { recursive: true });
    const roots = resolveRoots({
      home,
      env: {},
      platform: 'linux',
      roots: [
        { harness: 'claude-code', path: join(base, 'cc') },
        { harness: 'codex', path: join(base, 'cx') },
        { harness: 'palimpsest', path: join(base, 'p') },
      ],
    });
    expect(roots.filter((r) => r.source === '--root').map((r) => [r.harness, r.path])).toEqual([
      ['claude-code', join(base, 'cc', 'projects')],
      ['codex', join(base, 'cx', 'sessions')],
      ['palimpsest', join(base, 'p')],
    ]);
    expect(roots.filter((r) => r.harness === 'claude-code')).toHaveLength(1);
    expect(roots.some((r) => r.harness === 'dsh' && r.source === 'default')).toBe(true);
  });
});

describe('the index folder', () => {
  it('is PALIMPSEST_CACHE_DIR, else $XDG_CACHE_HOME/palimpsest, else ~/.cache/palimpsest', () => {
    expect(indexDir({ PALIMPSEST_CACHE_DIR: '/p', XDG_CACHE_HOME: '/x' }, home)).toBe('/p');
    expect(indexDir({ XDG_CACHE_HOME: '/x' }, home)).toBe('/x/palimpsest');
    expect(indexDir({ XDG_CACHE_HOME: 'relative' }, home)).toBe('/home/ada/.cache/palimpsest');
    expect(indexDir({}, home)).toBe('/home/ada/.cache/palimpsest');
  });
});
