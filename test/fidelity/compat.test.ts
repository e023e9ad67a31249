import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLIENTS } from '../../src/main/fidelity/clients';
import { versionFacts } from '../../src/main/fidelity/compat';
import { writeCompat } from '../../src/main/fidelity/main';
import { readScenarios } from '../../src/main/fidelity/scenario';
import { compareVersions, newerThanVerified, newestVerified } from '../../src/shared/compat/newest';
import type { VerifiedVersion } from '../../src/shared/compat/types';
import { VERIFIED_VERSIONS } from '../../src/shared/compat/versions';

/*
 * The compatibility generator on the committed real runs (fixtures/fidelity/logs), and the version
 * table the importers read: it must be exactly what the generator makes from those runs.
 */

const FIX = 'fixtures/fidelity';
const scenarios = readScenarios(join(FIX, 'scenarios'));
const dir = mkdtempSync(join(tmpdir(), 'palimpsest-compat-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('compatibility facts from saved runs', () => {
  it('Codex 0.47.0: usage before the output, instructions sent but not logged, compaction as `compacted`', () => {
    const f = versionFacts(FIX, 'codex', '0.47.0', scenarios);
    expect(f).not.toBeNull();
    expect(f?.scenarios).toEqual(['auto-compact', 'compact-http-500', 'tools-resume']);
    expect(f?.usage).toBe('before-output');
    expect(f?.usageCheckedOn.length).toBeGreaterThan(0);
    expect(f?.systemOnWire).toBe('`instructions`');
    expect(f?.systemInLog).toBe('absent');
    expect(f?.compactionRecords).toEqual(['compacted']);
    expect(f?.sideFiles).toBe('none');
    expect(f?.problems).toEqual([]);
  });

  it('Codex 0.171.0: base instructions as the first developer message; the logged copy differs from what is sent', () => {
    const f = versionFacts(FIX, 'codex', '0.171.0', scenarios);
    expect(f?.usage).toBe('after-output');
    expect(f?.systemOnWire).toBe('first `input` item (a `developer` message)');
    expect(f?.systemInLog).toBe('differs');
    expect(f?.systemLoggedIn).toBe('session_meta');
    expect(f?.toolsInLog.found).toBe(0);
    expect(f?.recordKinds).toContain('token_usage_record');
  });

  it('Claude Code: 2.0.77 writes top-level agent-*.jsonl; 2.1.332 logs system prompt and tools verbatim', () => {
    const old = versionFacts(FIX, 'claude-code', '2.0.77', scenarios);
    expect(old?.sideFiles).toBe('top-level agent-*.jsonl');
    expect(old?.systemInLog).toBe('absent');
    expect(old?.recordKinds).not.toContain('api-request');
    const cur = versionFacts(FIX, 'claude-code', '2.1.332', scenarios);
    expect(cur?.systemInLog).toBe('verbatim');
    expect(cur?.systemLoggedIn).toBe('api-request-shape');
    expect(cur?.toolsInLog.found).toBe(cur?.toolsInLog.of);
    expect(cur?.toolsInLog.of).toBeGreaterThan(0);
    expect(cur?.usage).toBe('on-output-record');
    expect(cur?.compactionRecords).toContain('system/compact_boundary');
  });

  it('a version with no saved run has no facts', () => {
    expect(versionFacts(FIX, 'codex', '0.1.0', scenarios)).toBeNull();
  });
});

describe('the version table and docs/compatibility.md', () => {
  it('are exactly what the generator writes from the saved runs (run `npm run docs:compat` after new runs)', () => {
    const doc = join(dir, 'compatibility.md');
    const table = join(dir, 'versions.ts');
    const w = writeCompat(FIX, scenarios, doc, table);
    expect(w.missing).toEqual([]);
    expect(readFileSync('docs/compatibility.md', 'utf8')).toBe(readFileSync(doc, 'utf8'));
    expect(readFileSync('src/shared/compat/versions.ts', 'utf8')).toBe(readFileSync(table, 'utf8'));
  });

  it('holds every pinned version, and names the current ones as the newest verified', () => {
    for (const c of Object.values(CLIENTS)) {
      expect(VERIFIED_VERSIONS.filter((v) => v.client === c.id).map((v) => v.version)).toEqual(c.versions);
      expect(newestVerified(c.id)).toBe(c.version);
    }
  });

  it('compares versions numerically and warns only above the newest verified', () => {
    const table: VerifiedVersion[] = [
      {
        client: 'codex',
        version: '0.9.0',
        scenarios: [],
        wireRequests: 0,
        systemInLog: 'unknown',
        toolsInLog: { found: 0, of: 0 },
        usage: 'unknown',
        compactionRecords: [],
        sideFiles: 'none',
        autoCompact: [],
      },
      {
        client: 'codex',
        version: '0.10.0',
        scenarios: [],
        wireRequests: 0,
        systemInLog: 'unknown',
        toolsInLog: { found: 0, of: 0 },
        usage: 'unknown',
        compactionRecords: [],
        sideFiles: 'none',
        autoCompact: [],
      },
    ];
    expect(newestVerified('codex', table)).toBe('0.10.0');
    expect(newestVerified('claude-code', table)).toBeNull();
    expect(newerThanVerified('codex', '0.11.0', table)).toBe(true);
    expect(newerThanVerified('codex', '0.10.0', table)).toBe(false);
    expect(newerThanVerified('codex', '0.10.1-alpha.1', table)).toBe(true);
    expect(newerThanVerified('codex', 'next', table)).toBe(false);
    expect(newerThanVerified('claude-code', '9.9.9', table)).toBe(false);
    expect(compareVersions('2.10.0', '2.9.9')).toBeGreaterThan(0);
  });

  it('puts a prerelease below its release and orders prereleases (both hand-written comparators said equal)', () => {
    expect(compareVersions('0.104.0-alpha.1', '0.104.0')).toBeLessThan(0);
    expect(compareVersions('0.104.0', '0.104.0-alpha.1')).toBeGreaterThan(0);
    expect(compareVersions('0.104.0-alpha.1', '0.104.0-alpha.2')).toBeLessThan(0);
    expect(compareVersions('0.119.0-alpha.28', '0.119.0-alpha.3')).toBeGreaterThan(0);
    expect(compareVersions('0.104.0-alpha.1', '0.104.0-alpha.1')).toBe(0);
    expect(compareVersions('0.104', '0.104.0')).toBeNull();
    const table: VerifiedVersion[] = [
      {
        client: 'codex',
        version: '0.104.0',
        scenarios: [],
        wireRequests: 0,
        systemInLog: 'unknown',
        toolsInLog: { found: 0, of: 0 },
        usage: 'unknown',
        compactionRecords: [],
        sideFiles: 'none',
        autoCompact: [],
      },
    ];
    // A prerelease of the newest verified version came before it: no warning.
    expect(newerThanVerified('codex', '0.104.0-alpha.1', table)).toBe(false);
    expect(newerThanVerified('codex', '0.104.1-alpha.1', table)).toBe(true);
  });
});
