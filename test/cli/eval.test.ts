import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runBuilt, type Run } from './run-built';
import YAML from 'yaml';

/** `palimpsest eval` and `palimpsest facts draft`, built, on the DSH example (no key, no network). */
const SPEC = 'fixtures/eval/dsh.spec.yaml';
let data = '';

/** A run killed, or ended by a signal, is code -1: never taken for exit 0. */
const run = (...args: string[]): Promise<Run> => runBuilt(args, 120_000, { ...process.env, PALIMPSEST_DATA_DIR: data });

beforeAll(async () => {
  data = await mkdtemp(join(tmpdir(), 'palimpsest-eval-cli-'));
});

describe('palimpsest eval', () => {
  it('runs the example, writes the three reports, and exits 0 when its thresholds hold', async () => {
    const html = join(data, 'r.html');
    const md = join(data, 'r.md');
    const json = join(data, 'r.json');
    const r = await run('eval', SPEC, '--report', html, '--report', md, '--report', json);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('## Eval: dsh-compaction-recovery');
    expect(await readFile(html, 'utf8')).toMatch(/^<!doctype html>/i);
    expect(await readFile(html, 'utf8')).not.toMatch(/<script/i);
    const j = JSON.parse(await readFile(json, 'utf8'));
    expect(j.passed).toBe(true);
    expect((await readFile(md, 'utf8')).length).toBeGreaterThan(100);
  });

  it('exits 1 when a threshold is missed, naming it', async () => {
    const spec = join(data, 'strict.spec.yaml');
    const text = (await readFile(SPEC, 'utf8'))
      .replace(/path: \.\.\//g, `path: ${resolve('fixtures')}/`)
      .replace(/facts: facts\//, `facts: ${resolve('fixtures/eval/facts')}/`)
      .replace(/script: mock\//, `script: ${resolve('fixtures/eval/mock')}/`);
    await writeFile(spec, text.replace(/^thresholds:[\s\S]*$/m, '') + '\nthresholds:\n  minRecall: 0.99\n');
    const r = await run('eval', spec, '--json');
    expect(r.code).toBe(1);
    const j = JSON.parse(r.stdout);
    expect(j.report.passed).toBe(false);
    expect(JSON.stringify(j.report)).toContain('minRecall');
  });

  it('exits 2 on a spec it cannot read', async () => {
    const r = await run('eval', join(data, 'missing.yaml'));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('missing.yaml');
  });
});

describe('palimpsest facts draft', () => {
  it('drafts unconfirmed facts from a trace for a person to check', async () => {
    const r = await run('facts', 'draft', 'fixtures/palimpsest/basic.jsonl', '--compaction', 'cmp_01');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('never scored until a person checks it');
    const draft = YAML.parse(r.stdout) as { facts: { confirmed: boolean }[] };
    expect(draft.facts.length).toBeGreaterThan(0);
    expect(draft.facts.every((f) => f.confirmed === false)).toBe(true);
    expect(r.stdout).toContain('src/paginate.ts');
  });
});
