import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HEALTH_CACHE_FILE } from '../../../src/main/health/cache';
import { sessionHealth } from '../../../src/main/health/row';
import { SessionFilesHealthSource } from '../../../src/main/health/session-files';
import { inspectJson } from '../../../src/main/present/json';
import { SessionInspector } from '../../../src/main/session/inspector';
import { loadSession } from '../../../src/main/session/load';
import { SessionHealth } from '../../../src/shared/health/row';

/*
 * The health row of real sessions against what `inspect --json` says of the same files (the
 * compactions, their triggers, outcomes and sizes; the findings), and the row source's cache.
 */

const FILES = [
  'fixtures/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl',
  'fixtures/claude-code/dag_compact_after_rewind_preserved.jsonl',
  'fixtures/claude-code/microcompact.jsonl',
  'fixtures/codex/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl',
  'fixtures/codex/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl',
  'fixtures/corpus/claude-code/marot-spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl',
  'fixtures/fidelity/logs/claude-code-2.1.9/auto-compact-trigger/projects/-tmp-palimpsest-fidelity-run-claude-code-2-1-9-auto-compact-trigger-work/c8ef5c2c-457f-4cf8-8da6-81c076b65111.jsonl',
  'fixtures/palimpsest/compaction-lifecycle.jsonl',
];

async function both(path: string) {
  const session = await loadSession(path);
  try {
    const inspector = new SessionInspector(session);
    await inspector.loadRuleTexts();
    return { row: sessionHealth(inspector, { key: path, path }), inspect: inspectJson(path, inspector) };
  } finally {
    await session.dispose();
  }
}

describe('sessionHealth on real sessions', () => {
  it.each(FILES)('agrees with inspect --json on %s', async (path) => {
    const { row, inspect } = await both(path);
    expect(SessionHealth.safeParse(row).success).toBe(true);
    expect(row.compactions.map((c) => [c.id, c.trigger, c.outcome, c.preTokens, c.postTokens])).toEqual(
      inspect.compactions.map((c) => [c.id, c.trigger, c.outcome, c.preTokens, c.postTokens]),
    );
    expect(row.requests).toBe(inspect.requests.filter((r) => r.purpose === 'agent').length);
    expect(row.findings.reduce((n, f) => n + f.count, 0)).toBe(inspect.diagnostics.length);
    const peak = Math.max(0, ...inspect.requests.filter((r) => r.purpose === 'agent').map((r) => r.reportedInputTokens ?? 0));
    expect(row.peakContext ?? 0).toBe(peak);
  });

  it('counts the requests at or above the trigger that TRIGGER_MISSED judges by', async () => {
    // Claude Code 2.1.9 compacted a sonnet-4-5 conversation at 157,000 tokens (the version table): the request of that size is at it.
    const { row } = await both(FILES[6] as string);
    expect(row.clientVersion).toBe('2.1.9');
    expect(row.compactions.map((c) => c.trigger)).toEqual(['auto']);
    expect(row.judged).toBeGreaterThan(0);
    expect(row.aboveTrigger).toBe(1);
  });

  it('tells failed, rejected and fallback outcomes apart as the log records them', async () => {
    const { row } = await both('fixtures/palimpsest/compaction-lifecycle.jsonl');
    expect(row.compactions.map((c) => c.outcome)).toEqual(['rejected', 'failed', 'fallback', 'committed', 'cancelled']);
    expect(row.day).toBe('2026-09-13');
  });

  it('flags a committed compaction a rule infers failed', async () => {
    const path =
      'fixtures/fidelity/logs/claude-code-2.1.332/compact-max-tokens/projects/-tmp-palimpsest-fidelity-run-claude-code-compact-max-tokens-work/51b2a7ca-9f48-4fbe-bee3-e4c9ac91518b.jsonl';
    const { row, inspect } = await both(path);
    expect(inspect.diagnostics.map((d) => d.rule)).toContain('SUMMARY_SECTIONS_MISSING');
    expect(row.compactions).toHaveLength(1);
    expect(row.compactions[0]?.outcome).toBe('committed');
    expect(row.compactions[0]?.inferredFailed).toBe(true);
  });

  it('counts the prompt-cache breaks `tokens` finds', async () => {
    // `palimpsest tokens FILE --estimate`: "4 prompt-cache breaks: 256,171 tokens not read from the cache".
    const { row } = await both(FILES[0] as string);
    expect([row.cacheBreaks, row.cacheBreakTokens]).toEqual([4, 256_171]);
    expect(row.cacheReadTokens).toBeGreaterThan(0);
    // And "2 prompt-cache breaks: 43,470 tokens".
    const other = await both(FILES[5] as string);
    expect([other.row.cacheBreaks, other.row.cacheBreakTokens]).toEqual([2, 43_470]);
  });
});

describe('SessionFilesHealthSource', () => {
  it('lists a session that fails to load with its error, and goes on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'palimpsest-health-'));
    copyFileSync(FILES[3] as string, join(dir, 'good.jsonl'));
    writeFileSync(join(dir, 'empty.jsonl'), '');
    const r = await new SessionFilesHealthSource({ dir, useCache: false }).rows();
    expect(r.rows.map((x) => x.key)).toEqual([join(dir, 'good.jsonl')]);
    expect(r.problems).toEqual([{ path: join(dir, 'empty.jsonl'), error: expect.stringContaining('empty') }]);
  });

  it('reads rows from its cache the second time, and again when a file changes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'palimpsest-health-'));
    const cacheDir = join(dir, 'cache');
    const sessions = join(dir, 'sessions');
    mkdirSync(sessions);
    copyFileSync(FILES[3] as string, join(sessions, 'a.jsonl'));
    copyFileSync(FILES[4] as string, join(sessions, 'b.jsonl'));
    const source = new SessionFilesHealthSource({ dir: sessions, cacheDir });
    const first = await source.rows();
    expect([first.cached, first.built]).toEqual([0, 2]);
    expect(JSON.parse(readFileSync(join(cacheDir, HEALTH_CACHE_FILE), 'utf8')).entries).toHaveProperty([join(sessions, 'a.jsonl')]);
    const second = await source.rows();
    expect([second.cached, second.built]).toEqual([2, 0]);
    expect(second.rows).toEqual(first.rows);
    const later = new Date(Date.now() + 5000);
    utimesSync(join(sessions, 'b.jsonl'), later, later);
    const third = await source.rows();
    expect([third.cached, third.built]).toEqual([1, 1]);
  });

  it('rebuilds from a damaged cache file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'palimpsest-health-'));
    writeFileSync(join(dir, HEALTH_CACHE_FILE), '{not json');
    copyFileSync(FILES[3] as string, join(dir, 'a.jsonl'));
    const r = await new SessionFilesHealthSource({ dir: join(dir, 'a.jsonl'), cacheDir: dir }).rows();
    expect(r.built).toBe(1);
    expect(r.notes.join(' ')).toContain('corrupt');
  });
});
