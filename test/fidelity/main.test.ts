import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT, main, parseFidelityArgs } from '../../src/main/fidelity/main';

const dir = mkdtempSync(join(tmpdir(), 'palimpsest-fidelity-main-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('fidelity flags', () => {
  it('reads every flag, in both --flag value and --flag=value forms', () => {
    const a = parseFidelityArgs([
      '--client',
      'codex',
      '--scenario=a,b',
      '--versions',
      'older',
      '--no-run',
      '--copy',
      '--report=r.md',
      '--fixtures',
      'fx',
      '--run-root',
      'rr',
      '--allow-mismatch',
      '--compat',
    ]);
    expect(a).toEqual({
      client: 'codex',
      scenario: 'a,b',
      versions: 'older',
      run: false,
      copy: true,
      report: 'r.md',
      fixtures: 'fx',
      runRoot: 'rr',
      allowMismatch: true,
      compat: true,
    });
  });

  it('defaults to every version, running the clients, with the committed fixtures', () => {
    const a = parseFidelityArgs([]);
    expect(a).toMatchObject({
      client: null,
      scenario: null,
      versions: 'all',
      run: true,
      copy: false,
      report: null,
      fixtures: 'fixtures/fidelity',
      allowMismatch: false,
      compat: false,
    });
  });

  it('names what is wrong with bad usage', () => {
    expect(parseFidelityArgs(['--client', 'nope'])).toBe('--client takes claude-code, codex, gemini-cli, opencode, not nope');
    expect(parseFidelityArgs(['--bogus'])).toBe('unknown option --bogus');
    expect(parseFidelityArgs(['--report'])).toBe('--report needs a value');
    expect(parseFidelityArgs(['--compat=yes'])).toBe('--compat takes no value');
    expect(parseFidelityArgs(['stray'])).toBe('unknown argument stray');
  });
});

describe('fidelity command', () => {
  it('rejects bad usage with exit 2', async () => {
    expect(await main(['--client', 'nope'])).toBe(EXIT.usage);
    expect(await main(['--bogus'])).toBe(EXIT.usage);
  });

  it('says so, with a distinct exit code, when there is nothing to compare for a client', async () => {
    const fixtures = join(dir, 'empty');
    mkdirSync(join(fixtures, 'scenarios'), { recursive: true });
    cpSync('fixtures/fidelity/scenarios/codex.tools-resume.json', join(fixtures, 'scenarios', 'codex.tools-resume.json'));
    const report = join(dir, 'empty.md');
    expect(await main(['--no-run', '--fixtures', fixtures, '--report', report])).toBe(EXIT.unavailable);
    expect(readFileSync(report, 'utf8')).toMatch(/\| codex \| 0\.171\.0 \| \*\*not run\*\*: no saved run of tools-resume/);
  });

  it('compares the saved real logs without running any client and writes the report', async () => {
    const report = join(dir, 'saved.md');
    const code = await main(['--no-run', '--report', report]);
    expect([EXIT.ok, EXIT.mismatch]).toContain(code);
    const md = readFileSync(report, 'utf8');
    expect(md).toContain('| claude-code | 2.1.332 | saved logs compared (fixtures/fidelity/logs), not re-run |');
    expect(md).toContain('| codex | 0.171.0 | saved logs compared (fixtures/fidelity/logs), not re-run |');
    expect(md).toContain('### claude-code 2.1.332 — compact-overloaded');
    // The version matrix: a row, a section and a total per client version.
    expect(md).toContain('| codex | 0.47.0 | saved logs compared (fixtures/fidelity/logs), not re-run |');
    expect(md).toContain('| claude-code | 2.0.77 | saved logs compared (fixtures/fidelity/logs), not re-run |');
    expect(md).toContain('### codex 0.47.0 — tools-resume');
    expect(md).toMatch(/\| \*\*codex 0\.47\.0\*\* \| \*\*all\*\* \|/);
    expect(md).toMatch(/\| \*\*codex 0\.171\.0\*\* \| \*\*all\*\* \|/);
    expect(md).not.toContain('### codex 0.47.0 — compact-overloaded');
    expect(md).toContain('## What each log records, and what only the wire shows');
  });
});
