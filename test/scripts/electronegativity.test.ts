import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without type declarations
import * as gate from '../../scripts/electronegativity.mjs';

interface Finding {
  check: string;
  severity: string;
  file: string;
  line: number;
}
const g = gate as {
  scan(input: string): Promise<{ issues: unknown[] }>;
  normalise(issues: unknown[], input: string): Finding[];
  readAllowlist(path: string): { entries: { check: string; file: string; reason: string }[]; problems: string[] };
  judge(
    findings: Finding[],
    entries: { check: string; file: string }[],
  ): { gated: Finding[]; refused: Finding[]; stale: { check: string }[] };
};

const dir = mkdtempSync(join(tmpdir(), 'palimpsest-electronegativity-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the Electronegativity gate', () => {
  it('finds a window without context isolation, and refuses it unless the allowlist accepts it', async () => {
    const app = join(dir, 'app');
    mkdirSync(app);
    writeFileSync(
      join(app, 'main.js'),
      [
        "const { BrowserWindow } = require('electron');",
        'const win = new BrowserWindow({ webPreferences: { nodeIntegration: true, contextIsolation: false, sandbox: false } });',
        "win.loadURL('https://example.com/');",
      ].join('\n'),
    );
    const result = await g.scan(app);
    const findings = g.normalise(result.issues, app);
    const file = relative(process.cwd(), join(app, 'main.js'));
    const isolation = findings.find((f) => f.check === 'CONTEXT_ISOLATION_JS_CHECK');
    expect(isolation).toMatchObject({ severity: 'HIGH', file });
    expect(g.judge(findings, []).refused).toContainEqual(isolation);
    const allowed = g.judge(
      findings,
      findings.map((f) => ({ check: f.check, file: f.file })),
    );
    expect(allowed.refused).toEqual([]);
    expect(allowed.stale).toEqual([]);
  });

  it('reports allowlist entries without a reason, and entries that match nothing', () => {
    const path = join(dir, 'allow.json');
    writeFileSync(
      path,
      JSON.stringify([
        { check: 'PRELOAD_JS_CHECK', file: 'src/main/electron/shell.ts' },
        { check: 'NODE_INTEGRATION_JS_CHECK', file: 'src/x.ts', reason: 'an entry whose finding was fixed long ago' },
      ]),
    );
    const { entries, problems } = g.readAllowlist(path);
    expect(problems).toEqual([expect.stringMatching(/entry 0 \(PRELOAD_JS_CHECK in src\/main\/electron\/shell.ts\): no "reason"/)]);
    expect(entries).toHaveLength(1);
    const preload = { check: 'PRELOAD_JS_CHECK', severity: 'MEDIUM', file: 'src/main/electron/shell.ts', line: 80 };
    const low = { check: 'CSP_GLOBAL_CHECK', severity: 'LOW', file: 'src/renderer/index.html', line: 9 };
    const r = g.judge([preload, low], entries);
    expect(r.gated).toEqual([preload]);
    expect(r.refused).toEqual([preload]);
    expect(r.stale.map((e) => e.check)).toEqual(['NODE_INTEGRATION_JS_CHECK']);
  });

  it("accepts this repository's shell with its allowlist", () => {
    const { entries, problems } = g.readAllowlist('electronegativity-allowlist.json');
    expect(problems).toEqual([]);
    expect(entries.map((e) => e.check)).toEqual(['PRELOAD_JS_CHECK']);
  });
});
