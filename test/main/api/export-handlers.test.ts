import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandlers, type Handlers } from '../../../src/main/api/handlers';
import { SessionRegistry } from '../../../src/main/api/sessions';
import { closeSessionTokens } from '../../../src/main/api/session/tokens';
import { RULES } from '../../../src/shared/redact/patterns';
import { value } from './results';

/* previewExport and exportSession: the web host's download, the desktop app's save, and refusals. */

const SECRETS = 'fixtures/secrets/secrets.jsonl';
const BASIC = 'fixtures/palimpsest/basic.jsonl';

let registry: SessionRegistry;
let web: Handlers;
let desktop: Handlers;
let dir: string;
let answer: string | null = null;
const asked: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'palimpsest-export-api-'));
  registry = new SessionRegistry({ allow: 'any' });
  web = createHandlers({ registry, initialPaths: [] });
  desktop = createHandlers({
    registry,
    initialPaths: [],
    saveExport: async (name) => {
      asked.push(name);
      return answer;
    },
  });
});
afterAll(async () => {
  registry.dispose();
  await closeSessionTokens();
});

const open = async (h: Handlers, path: string) => value(await h.openSession({ path })).sessionId;

describe('export handlers', () => {
  it('previews every redaction with its place, and never shows a secret', async () => {
    const id = await open(web, SECRETS);
    const p = value(await web.previewExport({ sessionId: id, kind: 'html', redact: true, patterns: [] }));
    expect(p.redactions).toBe(p.rows.length + p.unlisted);
    expect(Object.keys(p.byRule).sort()).toEqual(RULES.map((r) => r.name).sort());
    expect(p.rows.some((r) => r.place === 'document' && r.field === 'title')).toBe(true);
    for (const r of p.rows) for (const rule of RULES) expect(r.excerpt).not.toContain(rule.secret);
    const off = value(await web.previewExport({ sessionId: id, kind: 'html', redact: false, patterns: [] }));
    expect(off.redactions).toBe(0);
  });

  it('web host: returns the redacted document for download, named from the redacted title', async () => {
    const id = await open(web, SECRETS);
    const r = value(await web.exportSession({ sessionId: id, kind: 'markdown', compactionId: 'cmp_1', redact: true, patterns: [] }));
    expect(r.saved).toBeNull();
    expect(r.document?.mediaType).toBe('text/markdown');
    expect(r.document?.filename).toMatch(/^Secrets-[A-Za-z0-9._-]+-cmp_1\.md$/);
    for (const rule of RULES) {
      expect(r.document?.text).not.toContain(rule.secret);
      expect(r.document?.filename).not.toContain(rule.secret);
    }
  });

  it('desktop: saves where the user said, or nothing when they cancelled', async () => {
    const id = await open(desktop, BASIC);
    answer = null;
    const none = value(await desktop.exportSession({ sessionId: id, kind: 'html', redact: false, patterns: [] }));
    expect(none).toMatchObject({ saved: null, cancelled: true, document: null });
    expect(await readdir(dir)).toEqual([]);
    answer = join(dir, 'out.html');
    const r = value(await desktop.exportSession({ sessionId: id, kind: 'html', redact: true, patterns: [] }));
    expect(r).toMatchObject({ saved: answer, cancelled: false, document: null, byRule: { 'home-path': 2 } });
    expect(asked).toEqual(['Fix-the-last-page-bug-in-paginate.html', 'Fix-the-last-page-bug-in-paginate.html']);
    expect(await readFile(answer, 'utf8')).toContain('/home/[REDACTED:home-path]/shop-api');
    answer = BASIC;
    const self = await desktop.exportSession({ sessionId: id, kind: 'html', redact: false, patterns: [] });
    expect(self.ok ? null : self.error.message).toContain('the session itself');
  });

  it('refuses a bad own pattern and an unknown compaction as BAD_INPUT', async () => {
    const id = await open(web, BASIC);
    const bad = await web.previewExport({ sessionId: id, kind: 'html', redact: true, patterns: ['(x+)+'] });
    expect(bad.ok ? null : bad.error).toMatchObject({ code: 'BAD_INPUT', message: expect.stringContaining('repeats a group') });
    const none = await web.exportSession({ sessionId: id, kind: 'markdown', compactionId: 'nope', redact: false, patterns: [] });
    expect(none.ok ? null : none.error).toMatchObject({ code: 'BAD_INPUT', message: expect.stringContaining('compactions: cmp_01') });
  });
});
