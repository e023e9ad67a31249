import { mkdtemp, readFile, readdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { RULES } from '../../src/shared/redact/patterns';
import { runBuilt, type Run } from './run-built';

/* `palimpsest export`: HTML and Markdown files, redaction and its preview, and the refusals. */

const BASIC = 'fixtures/palimpsest/basic.jsonl';
const SECRETS = 'fixtures/secrets/secrets.jsonl';
const run = (...args: string[]): Promise<Run> => runBuilt(args, 120_000);
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'palimpsest-export-'));
});

describe('palimpsest export', () => {
  it('writes one HTML file and says where, how big and what was redacted', async () => {
    const out = join(dir, 'basic.html');
    const r = await run('export', BASIC, '--html', out, '--redact');
    expect(r.code).toBe(0);
    const html = await readFile(out, 'utf8');
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('<section id="history">');
    expect(html).not.toContain('/home/dev/');
    expect(r.stderr).toBe(`wrote ${out} (${(await stat(out)).size.toLocaleString('en-US')} bytes); 2 redactions (home-path 2)\n`);
    // Only the document is left in the folder: the temporary file was moved into place.
    expect(await readdir(dir)).toEqual(['basic.html']);
  });

  it('writes a compaction as Markdown, and answers in JSON with --json', async () => {
    const out = join(dir, 'cmp.md');
    const r = await run('export', SECRETS, '--markdown', out, '--compaction', 'cmp_1', '--redact', '--json');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout) as { kind: string; out: string; bytes: number; redactions: number; byRule: Record<string, number> };
    expect(j).toMatchObject({ kind: 'markdown', out, bytes: (await stat(out)).size });
    const md = await readFile(out, 'utf8');
    for (const rule of RULES) expect(md).not.toContain(rule.secret);
    expect(Object.keys(j.byRule).sort()).toEqual(RULES.map((x) => x.name).sort());
  });

  it('previews each redaction, with its place and a masked excerpt, writing nothing', async () => {
    const before = await readdir(dir);
    const r = await run('export', SECRETS, '--redact', '--preview');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^aws-access-key +item #0 \/ text\n {4}.*\[REDACTED:aws-access-key\]/m);
    expect(r.stdout).toMatch(/\d+ redactions \(.*\); nothing written\n$/);
    for (const rule of RULES) expect(r.stdout).not.toContain(rule.secret);
    expect(await readdir(dir)).toEqual(before);
    const j = JSON.parse((await run('export', SECRETS, '--dry-run', '--redact-pattern', 'Thinking', '--json')).stdout) as {
      preview: boolean;
      listed: { rule: string; place: string; field: string; excerpt: string }[];
      byRule: Record<string, number>;
    };
    expect(j.preview).toBe(true);
    // An own pattern turns the built-in rules on too.
    expect(j.byRule['own-1']).toBeGreaterThan(0);
    expect(j.byRule.email).toBeGreaterThan(0);
    expect(j.listed.find((l) => l.rule === 'own-1')).toMatchObject({ place: 'item #1', field: 'text' });
  });

  it('refuses bad usage with exit 2 and a message that names the problem', async () => {
    const cases: [string[], string][] = [
      [['export', BASIC], 'export needs --html OUT'],
      [['export', BASIC, '--markdown', join(dir, 'x.md')], '--markdown exports one compaction'],
      [['export', BASIC, '--html', join(dir, 'x.html'), '--compaction', 'cmp_01'], '--compaction picks the compaction'],
      [['export', BASIC, '--preview'], '--preview lists what redaction would change'],
      [['export', BASIC, '--html', join(dir, 'x.html'), '--redact-pattern', '(a+)+'], 'repeats a group that itself repeats'],
      [['export', BASIC, '--html', join(dir, 'x.html'), '--redact-pattern', '[oops'], 'redaction pattern 1 /[oops/ is not a valid'],
      [['export', BASIC, '--markdown', join(dir, 'x.md'), '--compaction', 'nope'], 'compactions: cmp_01'],
      [['export', BASIC, '--html', BASIC], 'is the session itself'],
      [['export', 'fixtures/rind/missing-folder', '--html', join(dir, 'x.html')], 'palimpsest export:'],
    ];
    for (const [args, message] of cases) {
      const r = await run(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toContain(message);
    }
    expect(await readdir(dir)).not.toContain('x.html');
    const j = JSON.parse((await run('export', BASIC, '--preview', '--json')).stdout) as { code: string };
    expect(j.code).toBe('USAGE');
  });
});
