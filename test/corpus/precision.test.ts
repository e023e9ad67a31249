import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { diagnosticJson } from '../../src/main/present/json';
import { validateSession } from '../../src/main/cli/validate';
import { SessionInspector } from '../../src/main/session/inspector';
import { loadSession } from '../../src/main/session/load';
import { COMMITTED, OTHER_REAL, committedFiles, fetchedFiles } from './files';

/*
 * The findings of `validate` on real sessions, each reviewed by hand (fixtures/corpus/review.json:
 * the verdict "true" when the log shows what the finding says, "false" when it does not, and why).
 * Every finding on the committed corpus must have a verdict, and so must those on the fetched
 * sessions when they are here: a rule that starts reporting something new on a real log needs a
 * reviewer's eye. The per-rule precision this gives is the table of docs/diagnostics.md,
 * "Precision on real sessions" (scripts/corpus-findings.mjs --docs writes it).
 */

interface Finding {
  file: string;
  rule: string;
  line: number | null;
  message: string;
}

interface Verdict extends Finding {
  verdict: 'true' | 'false';
  why: string;
}

export interface RulePrecision {
  rule: string;
  findings: number;
  true: number;
  false: number;
  unreviewed: number;
}

const REVIEW: Verdict[] = JSON.parse(readFileSync(`${COMMITTED}/review.json`, 'utf8')) as Verdict[];

const key = (f: Finding): string => JSON.stringify([f.file, f.rule, f.line, f.message]);

/** What `validate --json` reports on one session, as scripts/corpus-findings.mjs lists it. */
async function findingsOf(session: string): Promise<Finding[]> {
  let loaded: Awaited<ReturnType<typeof loadSession>>;
  try {
    loaded = await loadSession(session);
  } catch {
    return []; // An unreadable file (the corpus's empty one) has no findings to review.
  }
  try {
    const found = await validateSession(new SessionInspector(loaded));
    return found.map(diagnosticJson).map((d) => ({ file: d.file ?? session, rule: d.rule, line: d.line ?? null, message: d.message }));
  } finally {
    await loaded.dispose();
  }
}

/** Per rule: findings, reviewed true, reviewed false, not reviewed. */
export function precision(found: readonly Finding[], review: readonly Verdict[]): RulePrecision[] {
  const verdicts = new Map(review.map((r) => [key(r), r.verdict]));
  const rules = new Map<string, RulePrecision>();
  for (const f of found) {
    const r = rules.get(f.rule) ?? { rule: f.rule, findings: 0, true: 0, false: 0, unreviewed: 0 };
    const v = verdicts.get(key(f));
    r.findings++;
    if (v === 'true') r.true++;
    else if (v === 'false') r.false++;
    else r.unreviewed++;
    rules.set(f.rule, r);
  }
  return [...rules.values()].sort((a, b) => a.rule.localeCompare(b.rule));
}

describe('corpus: every validate finding on a real session has been reviewed', () => {
  it('each verdict is "true" or "false" with a reason', () => {
    expect(REVIEW.length).toBeGreaterThan(0);
    for (const r of REVIEW) {
      expect(['true', 'false'], key(r)).toContain(r.verdict);
      expect(r.why.length, key(r)).toBeGreaterThan(20);
    }
    expect(new Set(REVIEW.map(key)).size).toBe(REVIEW.length);
  });

  it('the committed corpus and the fetched sessions here: no finding without a verdict', async () => {
    const sessions = [...committedFiles(), ...OTHER_REAL, ...fetchedFiles()];
    const found: Finding[] = [];
    for (const s of sessions) found.push(...(await findingsOf(s)));
    const table = precision(found, REVIEW);
    console.log(
      `corpus precision on ${sessions.length} sessions (${fetchedFiles().length} fetched):\n` +
        table
          .map((r) => `  ${r.rule.padEnd(28)} findings ${r.findings}  true ${r.true}  false ${r.false}  not reviewed ${r.unreviewed}`)
          .join('\n'),
    );
    expect(found.length).toBeGreaterThan(0);
    const verdicts = new Set(REVIEW.map(key));
    expect(found.filter((f) => !verdicts.has(key(f)))).toEqual([]);
    expect(table.every((r) => r.unreviewed === 0)).toBe(true);
  }, 600_000);
});

describe('precision table', () => {
  it('counts findings, true and false verdicts and unreviewed findings per rule', () => {
    const f = (rule: string, line: number): Finding => ({ file: 'a.jsonl', rule, line, message: 'm' });
    const found = [f('A', 1), f('A', 2), f('A', 3), f('B', 1)];
    const review: Verdict[] = [
      { ...f('A', 1), verdict: 'true', why: 'x' },
      { ...f('A', 2), verdict: 'false', why: 'x' },
      { ...f('B', 9), verdict: 'true', why: 'x' },
    ];
    expect(precision(found, review)).toEqual([
      { rule: 'A', findings: 3, true: 1, false: 1, unreviewed: 1 },
      { rule: 'B', findings: 1, true: 0, false: 0, unreviewed: 1 },
    ]);
  });
});
