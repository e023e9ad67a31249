import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { RULES } from '../../../src/shared/redact/patterns';
import { esc } from '../../../src/main/api/export/html-text';
import { exportFixture, NO_REDACTION, REDACT } from './helpers';

/*
 * Written by scripts/gen-secrets-fixture.ts: the example of every redaction rule in every kind of
 * text an export writes. No example may survive an export with redaction, in any form a reader
 * could take it from (as is, HTML-escaped, JSON-escaped).
 */
const SECRETS = 'fixtures/secrets/secrets.jsonl';

/** The forms in which a secret (or any line of it, for a PEM block) could appear in a document. */
function forms(secret: string): string[] {
  const lines = [secret, ...secret.split('\n').filter((l) => l.length >= 8 && !l.startsWith('-----'))];
  return lines.flatMap((l) => [l, esc(l), JSON.stringify(l).slice(1, -1)]);
}

function survivors(doc: string): string[] {
  return RULES.flatMap((r) =>
    forms(r.secret)
      .filter((f) => doc.includes(f))
      .map((f) => `${r.name}: ${f}`),
  );
}

describe('no known secret survives an export with redaction', () => {
  it('the fixture holds the example of every rule (regenerate it after adding one)', async () => {
    const raw = await readFile(SECRETS, 'utf8');
    for (const r of RULES) expect(raw.includes(JSON.stringify(r.example).slice(1, -1)), r.name).toBe(true);
  });

  it('HTML: every example is in the unredacted export, none in the redacted one', async () => {
    const plain = await exportFixture(SECRETS, { kind: 'html' }, NO_REDACTION);
    // The test can fail: without redaction, each secret is there.
    for (const r of RULES)
      expect(
        forms(r.secret).some((f) => plain.text.includes(f)),
        r.name,
      ).toBe(true);
    expect(plain.summary.redactions).toBe(0);
    const red = await exportFixture(SECRETS, { kind: 'html' }, REDACT);
    expect(survivors(red.text)).toEqual([]);
    for (const r of RULES) expect(red.summary.byRule[r.name], r.name).toBeGreaterThan(0);
    for (const l of red.summary.listed) for (const r of RULES) expect(l.excerpt).not.toContain(r.secret);
  });

  it('Markdown of the compaction: none survives either', async () => {
    const plain = await exportFixture(SECRETS, { kind: 'markdown', compaction: 'cmp_1' }, NO_REDACTION);
    for (const r of RULES)
      expect(
        forms(r.secret).some((f) => plain.text.includes(f)),
        r.name,
      ).toBe(true);
    const red = await exportFixture(SECRETS, { kind: 'markdown', compaction: 'cmp_1' }, REDACT);
    expect(survivors(red.text)).toEqual([]);
    expect(red.text).toContain('[REDACTED:aws-access-key]');
  });

  it('redacts the title, the system prompt, tool arguments and schemas, and names where', async () => {
    const red = await exportFixture(SECRETS, { kind: 'html' }, REDACT);
    const places = new Set(red.summary.listed.map((l) => `${l.place} / ${l.field}`));
    for (const p of [
      'document / title',
      'header event 1 / system prompt',
      'header event 1 / tool run description',
      'header event 1 / tool run input schema',
      'item #1 / text',
      'request 1 / error',
      'compaction cmp_1 / summary',
      'compaction cmp_1, attempt 1 / instruction',
    ])
      expect(places.has(p), p).toBe(true);
    const title = /<title>(.*?)<\/title>/s.exec(red.text)?.[1] ?? '';
    expect(title).toContain('[REDACTED:openai-key]');
  });
});
