import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBuilt } from './run-built';
// @ts-expect-error: a plain .mjs script without type declarations
import { PAYLOADS } from '../../scripts/gen-xss-fixture.mjs';

/*
 * `palimpsest report` as a user runs it (the built command): the table, --json against what
 * `inspect --json` says of the same files, --since, --root, a session that fails to load, and the
 * HTML page of a session whose project, model and file name carry markup.
 */

const base = mkdtempSync(join(tmpdir(), 'palimpsest-cli-report-'));
const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH ?? '',
  HOME: join(base, 'home'),
  PALIMPSEST_CACHE_DIR: join(base, 'cache'),
  ...extra,
});
mkdirSync(join(base, 'home'), { recursive: true });

const lib = join(base, 'lib');
mkdirSync(lib);
const CODEX = [
  'rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl',
  'rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl',
];
for (const f of CODEX) copyFileSync(`fixtures/codex/${f}`, join(lib, f));
copyFileSync('fixtures/palimpsest/compaction-lifecycle.jsonl', join(lib, 'lifecycle.jsonl'));
copyFileSync('fixtures/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl', join(lib, 'claude.jsonl'));
writeFileSync(join(lib, 'empty.jsonl'), '');

/** Everything the page may contain: no script, no frame, no image, no event handler. */
const ELEMENTS = [
  'html',
  'head',
  'meta',
  'title',
  'style',
  'body',
  'h1',
  'h2',
  'h3',
  'p',
  'figure',
  'figcaption',
  'svg',
  'a',
  'text',
  'rect',
  'span',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
  'small',
  'b',
  'code',
  'section',
  'ul',
  'li',
];
const ATTRIBUTES = [
  'lang',
  'charset',
  'http-equiv',
  'content',
  'name',
  'id',
  'class',
  'xmlns',
  'width',
  'height',
  'role',
  'aria-label',
  'aria-hidden',
  'href',
  'x',
  'y',
  'text-anchor',
  'fill',
];

interface Report {
  by: string;
  total: { sessions: number; compactions: number; failed: number; byOutcome: Record<string, number> };
  buckets: { key: string; sessions: number; sessionKeys: string[]; compactionRefs: { session: string; id: string }[] }[];
  sessions: { key: string; path: string; harness: string; compactions: { id: string; trigger: string; outcome: string | null }[] }[];
  problems: { path: string; error: string }[];
  built: number;
  cached: number;
}

describe('palimpsest report', () => {
  it('prints a table per harness, lists what it could not read, and says where it got to on stderr', async () => {
    const r = await runBuilt(['report', lib, '--by', 'harness', '--no-cache'], 60_000, env());
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^HARNESS\s+SESSIONS\s+REQUESTS/);
    expect(lines.find((l) => l.startsWith('codex'))).toMatch(/^codex\s+2\s/);
    expect(lines.find((l) => l.startsWith('total'))).toMatch(/^total\s+4\s/);
    expect(r.stdout).toContain('Not read (1):');
    expect(r.stdout).toContain(`${join(lib, 'empty.jsonl')}: `);
    expect(r.stderr).toContain('palimpsest report: 5/5 sessions');
  });

  it('--json: each session has the compactions inspect --json finds in it', async () => {
    const r = await runBuilt(['report', lib, '--json'], 60_000, env());
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout) as Report;
    expect(j.by).toBe('day');
    expect(j.sessions).toHaveLength(4);
    for (const s of j.sessions) {
      const i = await runBuilt(['inspect', s.key, '--json'], 60_000, env());
      const inspect = JSON.parse(i.stdout) as { compactions: { id: string; trigger: string; outcome: string | null }[] };
      expect(s.compactions.map((c) => [c.id, c.trigger, c.outcome])).toEqual(inspect.compactions.map((c) => [c.id, c.trigger, c.outcome]));
    }
    // compaction-lifecycle.jsonl: rejected, failed, fallback, committed, cancelled.
    expect(j.total.failed).toBe(3);
    expect(j.total.byOutcome).toMatchObject({ rejected: 1, failed: 1, fallback: 1, cancelled: 1 });
    expect(j.buckets.flatMap((b) => b.sessionKeys).sort()).toEqual(j.sessions.map((s) => s.key).sort());
    expect(j.problems.map((p) => p.path)).toEqual([join(lib, 'empty.jsonl')]);
  });

  it('--since leaves out the sessions before the day', async () => {
    const r = await runBuilt(['report', lib, '--json', '--since', '2026-09-01'], 60_000, env());
    const j = JSON.parse(r.stdout) as Report;
    expect(j.sessions.map((s) => s.key)).toEqual([join(lib, 'lifecycle.jsonl')]);
    expect(j.buckets.map((b) => b.key)).toEqual(['2026-09-13']);
  });

  it('finds the sessions of a --root as ls does', async () => {
    const codexHome = join(base, 'codex');
    mkdirSync(join(codexHome, 'sessions', '2026', '02', '23'), { recursive: true });
    for (const f of CODEX) copyFileSync(`fixtures/codex/${f}`, join(codexHome, 'sessions', '2026', '02', '23', f));
    const r = await runBuilt(['report', '--root', `codex=${codexHome}`, '--by', 'harness', '--json'], 60_000, env());
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout) as Report;
    expect(j.buckets.map((b) => [b.key, b.sessions])).toEqual([['codex', 2]]);
    // Through the session index: read once, then taken from it; the rows are those of the folder's report.
    expect([j.built, j.cached]).toEqual([2, 0]);
    expect(existsSync(join(base, 'cache', 'index.db'))).toBe(true);
    const again = JSON.parse((await runBuilt(['report', '--root', `codex=${codexHome}`, '--json'], 60_000, env())).stdout) as Report;
    expect([again.built, again.cached]).toEqual([0, 2]);
    const dir = JSON.parse((await runBuilt(['report', join(codexHome, 'sessions'), '--json'], 60_000, env())).stdout) as Report;
    const rows = (x: Report) =>
      x.sessions.map((s) => ({ ...s, key: '', path: s.path.split('/').pop() ?? '' })).sort((a, b) => (a.path < b.path ? -1 : 1));
    expect(rows(again)).toEqual(rows(dir));
  });

  it('refuses bad usage with exit 2', async () => {
    expect((await runBuilt(['report', lib, '--by', 'week'], 60_000, env())).code).toBe(2);
    expect((await runBuilt(['report', lib, '--since', 'yesterday'], 60_000, env())).code).toBe(2);
    expect((await runBuilt(['report', lib, '--json', '--html', join(base, 'x.html')], 60_000, env())).code).toBe(2);
  });

  it('--html writes one page with no executable markup from the sessions', async () => {
    const dir = join(base, 'xss');
    mkdirSync(dir);
    const all = (PAYLOADS as string[]).join(' ');
    const lines = readFileSync('fixtures/xss/xss.jsonl', 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => {
        const e = JSON.parse(l) as { kind: string; cwd?: string; route?: { model?: string } };
        if (e.kind === 'session') e.cwd = all;
        if (e.route) e.route.model = (PAYLOADS as string[])[1];
        return JSON.stringify(e);
      });
    const name = `<img src=x onerror=alert(1)>.jsonl`;
    writeFileSync(join(dir, name), `${lines.join('\n')}\n`);
    const out = join(base, 'health.html');
    for (const by of ['project', 'model']) {
      const r = await runBuilt(['report', dir, '--by', by, '--html', out], 60_000, env());
      expect(r.code).toBe(0);
      const html = readFileSync(out, 'utf8');
      expect(html).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'sha256-[^']+'">/);
      // Escaped text holds no '<': every tag is the page's own, with its own attributes only.
      const tags = [...html.matchAll(/<([a-zA-Z][\w-]*)([^>]*)>/g)];
      expect(tags.length).toBeGreaterThan(0);
      for (const t of tags) expect(ELEMENTS).toContain(t[1]?.toLowerCase());
      for (const t of tags) {
        const attrs = t[2] ?? '';
        const names = [...attrs.matchAll(/\s([\w:-]+)="[^"]*"/g)].map((m) => m[1]);
        expect(
          attrs
            .replace(/\s([\w:-]+)="[^"]*"/g, '')
            .trim()
            .replace(/^\/$/, ''),
        ).toBe('');
        for (const n of names) expect(ATTRIBUTES).toContain(n);
      }
      expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
      const hrefs = [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]);
      expect(hrefs.length).toBeGreaterThan(0);
      expect(hrefs.every((h) => h?.startsWith('#'))).toBe(true);
    }
  });
});
