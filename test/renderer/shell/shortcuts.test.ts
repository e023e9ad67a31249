import { describe, expect, it } from 'vitest';
import { shortcutFor, SHORTCUTS } from '../../../src/renderer/app/shortcuts';
import { filterSessions, harnessCounts } from '../../../src/renderer/library/filter';
import type { DiscoveredSession } from '../../../src/shared/api/contract';

const press = (key: string, mods: Partial<{ alt: boolean; ctrl: boolean; meta: boolean; shift: boolean; code: string }> = {}) => ({
  key,
  code: mods.code ?? '',
  altKey: mods.alt ?? false,
  ctrlKey: mods.ctrl ?? false,
  metaKey: mods.meta ?? false,
  shiftKey: mods.shift ?? false,
});

describe('shell shortcuts', () => {
  it('maps keys to actions, on Ctrl or Cmd, and leaves plain keys alone while typing', () => {
    expect(shortcutFor(press('?', { shift: true }), false)?.action).toBe('help');
    expect(shortcutFor(press('?', { shift: true }), true)).toBeNull();
    expect(shortcutFor(press('f', { ctrl: true }), true)?.action).toBe('search');
    expect(shortcutFor(press('F', { meta: true }), false)?.action).toBe('search');
    expect(shortcutFor(press('f'), false)).toBeNull();
    expect(shortcutFor(press('∑', { alt: true, code: 'KeyW' }), false)?.action).toBe('closeTab');
    expect(shortcutFor(press(']'), false)?.action).toBe('nextTab');
    expect(shortcutFor(press(']'), true)).toBeNull();
  });

  it('has one entry per action, each with help', () => {
    expect(new Set(SHORTCUTS.map((s) => s.action)).size).toBe(SHORTCUTS.length);
    expect(SHORTCUTS.every((s) => s.help.length > 5 && s.label(false).length > 0)).toBe(true);
    expect(SHORTCUTS.find((s) => s.action === 'search')?.label(true)).toBe('⌘F');
  });
});

describe('library filter', () => {
  const row = (path: string, harness: DiscoveredSession['harness'], more: Partial<DiscoveredSession> = {}): DiscoveredSession => ({
    path,
    harness,
    origin: 'machine',
    root: '/r',
    id: null,
    project: null,
    title: null,
    startedAt: null,
    endedAt: null,
    modifiedAt: '2026-01-01T00:00:00.000Z',
    bytes: 1,
    files: 1,
    requests: null,
    compactions: null,
    model: null,
    harnessVersion: null,
    badLines: 0,
    problems: [],
    ...more,
  });
  const list = [
    row('/h/.claude/projects/shop/a.jsonl', 'claude-code', { title: 'Fix pagination', project: '/home/dev/shop' }),
    row('/h/.codex/sessions/rollout-1.jsonl', 'codex', { model: 'gpt-5-codex' }),
    row('/tmp/x.jsonl', null),
  ];

  it('needs every word, in any field, case-insensitively', () => {
    expect(filterSessions(list, 'SHOP pagination', 'all').map((s) => s.harness)).toEqual(['claude-code']);
    expect(filterSessions(list, 'gpt-5', 'all').map((s) => s.harness)).toEqual(['codex']);
    expect(filterSessions(list, 'shop codex', 'all')).toEqual([]);
    expect(filterSessions(list, '  ', 'all')).toHaveLength(3);
  });

  it('narrows by harness, unknown formats included', () => {
    expect(filterSessions(list, '', 'unknown').map((s) => s.path)).toEqual(['/tmp/x.jsonl']);
    expect(harnessCounts(list)).toEqual([
      ['claude-code', 1],
      ['codex', 1],
      ['unknown', 1],
    ]);
  });
});
