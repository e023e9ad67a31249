import { existsSync, readdirSync } from 'node:fs';
import { attachCaptures, readCaptures } from '../../../src/main/capture/attach';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateSession } from '../../../src/main/cli/validate';
import { SessionInspector } from '../../../src/main/session/inspector';
import { loadSession } from '../../../src/main/session/load';
import { RULES } from '../../../src/shared/diagnostics';
import type { Diagnostic } from '../../../src/shared/model/diagnostic';

/**
 * Every rule of the catalog has a failing and a passing fixture (fixtures/diagnostics/<RULE>/,
 * written by scripts/gen-diagnostic-fixtures.ts), in Palimpsest format v1 and, where the concept
 * exists there, in DeepSeek Harness's format. The rule reports a warning or an error on `fail` and
 * nothing above info on `pass`; its findings are located at a line of the file.
 */

const ROOT = 'fixtures/diagnostics';

/** Rules whose concept DeepSeek Harness's format can express (the others need a policy, MapReduce or fallbacks DSH does not log). */
const IN_DSH = [
  'PAIR_SPLIT',
  'SYSTEM_HEAD_COMPACTED',
  'PROTECTED_TEXT_SHORTENED',
  'EMPTY_SUMMARY',
  'SUMMARY_NOT_SMALLER',
  'COMPACTION_GREW_CONTEXT',
  'NO_PROVENANCE',
  'ORPHAN_COMPACTION_START',
  'MID_HISTORY_MUTATION',
  'RETRY_LOOP',
  'WINDOW_CHANGED',
  'HALF_WRITTEN_COMPACTION',
  'PENDING_USER_SUMMARISED',
];

/** The captures beside a wire rule's fixture: `<name>.capture-N.jsonl`. */
function capturesOf(path: string): string[] {
  const dir = join(path, '..');
  const base = path.slice(dir.length + 1).replace(/\.jsonl$/, '');
  return readdirSync(dir)
    .filter((f) => f.startsWith(`${base}.capture-`))
    .sort()
    .map((f) => join(dir, f));
}

async function findings(path: string, captures: readonly string[] = []): Promise<{ format: string; ds: Diagnostic[] }> {
  const session = await loadSession(path);
  try {
    const inspector = new SessionInspector(session);
    await attachCaptures(inspector, await readCaptures(captures));
    return { format: session.format, ds: await validateSession(inspector) };
  } finally {
    await session.dispose();
  }
}

const above = (ds: readonly Diagnostic[], rule: string) => ds.filter((d) => d.rule === rule && d.severity !== 'info');

/** A rule's own findings: none on a passing fixture; on a failing one, well-formed and located in one of `files`. */
function expectOwn(rule: (typeof RULES)[number], own: readonly Diagnostic[], failing: boolean, files: readonly string[]): void {
  if (!failing) {
    expect(own).toEqual([]);
    return;
  }
  expect(own.length).toBeGreaterThan(0);
  for (const d of own) {
    expect(rule.severities).toContain(d.severity);
    expect(d.seqs.length).toBeGreaterThan(0);
    expect(files).toContain(d.file);
    expect(d.line).toBeGreaterThan(0);
    expect(d.message).toMatch(/\.$/);
  }
}

describe('diagnostics fixtures', () => {
  it('has one folder per rule of the catalog, no more', () => {
    const folders = readdirSync(ROOT, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    expect(folders).toEqual(RULES.map((r) => r.id).sort());
  });

  it('has DSH fixtures exactly for the rules whose concept the format expresses', () => {
    const withDsh = RULES.map((r) => r.id)
      .filter((id) => existsSync(join(ROOT, id, 'fail.dsh.jsonl')))
      .sort();
    expect(withDsh).toEqual([...IN_DSH].sort());
    for (const id of IN_DSH) expect(existsSync(join(ROOT, id, 'pass.dsh.jsonl'))).toBe(true);
  });

  // Rules over a joined session: a real client's log with the captures of its wire traffic
  // (scripts/gen-wire-fixtures.mjs); their findings point at the capture line.
  for (const rule of RULES.filter((r) => r.origins.includes('wire'))) {
    describe(rule.id, () => {
      for (const file of ['fail.jsonl', 'pass.jsonl']) {
        const path = join(ROOT, rule.id, file);
        const failing = file.startsWith('fail');
        it(`${failing ? 'fires on' : 'is silent on'} ${file} joined with its captures, and is silent without them`, async () => {
          const captures = capturesOf(path);
          expect(captures.length).toBeGreaterThan(0);
          const { ds } = await findings(path, captures);
          expect(above((await findings(path)).ds, rule.id)).toEqual([]);
          expectOwn(rule, above(ds, rule.id), failing, captures);
        });
      }
    });
  }

  for (const rule of RULES.filter((r) => !r.origins.includes('wire'))) {
    const variants = [
      { file: 'fail.jsonl', format: 'palimpsest' },
      { file: 'pass.jsonl', format: 'palimpsest' },
      ...(IN_DSH.includes(rule.id)
        ? [
            { file: 'fail.dsh.jsonl', format: 'dsh' },
            { file: 'pass.dsh.jsonl', format: 'dsh' },
          ]
        : []),
    ];
    describe(rule.id, () => {
      for (const v of variants) {
        const path = join(ROOT, rule.id, v.file);
        const failing = v.file.startsWith('fail');
        it(`${failing ? 'fires on' : 'is silent on'} ${v.file}`, async () => {
          const { format, ds } = await findings(path);
          expect(format).toBe(v.format);
          expectOwn(rule, above(ds, rule.id), failing, [path]);
        });
      }
    });
  }
});
