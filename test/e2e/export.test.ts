import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright';
import { launch, screenshot } from './harness';
import { openFixture } from './session-helpers';

/* The export dialog in the web host: keyboard reachable, the preview from main, the download. */

let browser: Browser;

beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

describe('export dialog', () => {
  it('opens with e, previews the redactions of the seeded fixture, and downloads a redacted page', async () => {
    const o = await openFixture(browser, 'fixtures/secrets/secrets.jsonl');
    try {
      await o.page.keyboard.press('e');
      const dialog = o.page.getByRole('dialog', { name: 'Export' });
      await dialog.waitFor();
      // Focus is in the dialog: the first choice.
      expect(await o.page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.name)).toBe('export-kind');
      await dialog.getByRole('button', { name: 'Preview redactions' }).click();
      const preview = dialog.getByLabel('Redaction preview');
      await preview.waitFor();
      expect(await preview.locator('p').first().textContent()).toMatch(/^\d+ redactions: .*aws-access-key \d+/);
      const excerpts = await preview.locator('code').allTextContents();
      expect(excerpts.length).toBeGreaterThan(10);
      for (const e of excerpts) expect(e).not.toContain('AKIAFAKEKEYFORTESTS7');
      await screenshot(o.page, 'export-dialog-preview');
      const [file] = await Promise.all([o.page.waitForEvent('download'), dialog.getByRole('button', { name: 'Export…' }).click()]);
      expect(file.suggestedFilename()).toMatch(/^Secrets-.*\.html$/);
      const stream = await file.createReadStream();
      const chunks: Buffer[] = [];
      for await (const c of stream) chunks.push(c as Buffer);
      const html = Buffer.concat(chunks).toString('utf8');
      expect(html).toContain('[REDACTED:aws-access-key]');
      expect(html).not.toContain('AKIAFAKEKEYFORTESTS7');
      await dialog.getByRole('status').filter({ hasText: 'Downloaded' }).waitFor();
      // Escape closes it; ? lists the key.
      await dialog.getByRole('button', { name: 'Close' }).focus();
      await o.page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      await o.page.keyboard.press('?');
      const keys = o.page.getByRole('dialog', { name: 'Keyboard shortcuts' });
      await keys.waitFor();
      expect(await keys.innerText()).toContain('export the session or a compaction');
      expect(o.errors).toEqual([]);
    } finally {
      await o.close();
    }
  });

  it('refuses a catastrophic own pattern with the reason, and exports a compaction as Markdown', async () => {
    const o = await openFixture(browser, 'fixtures/palimpsest/basic.jsonl');
    try {
      await o.page.getByRole('button', { name: 'Export…' }).click();
      const dialog = o.page.getByRole('dialog', { name: 'Export' });
      await dialog.getByLabel('own patterns (regular expressions, one a line)').fill('(a+)+');
      await dialog.getByRole('button', { name: 'Preview redactions' }).click();
      expect(await dialog.getByRole('alert').textContent()).toMatch(/BAD_INPUT.*repeats a group/);
      await dialog.getByLabel('own patterns (regular expressions, one a line)').fill('paginate');
      await dialog.getByRole('radio', { name: 'a compaction as Markdown' }).check();
      const [file] = await Promise.all([o.page.waitForEvent('download'), dialog.getByRole('button', { name: 'Export…' }).click()]);
      expect(file.suggestedFilename()).toMatch(/-cmp_01\.md$/);
      const chunks: Buffer[] = [];
      for await (const c of await file.createReadStream()) chunks.push(c as Buffer);
      const md = Buffer.concat(chunks).toString('utf8');
      expect(md).toContain('### Compaction `cmp_01`');
      expect(md).toContain('[REDACTED:own-1]');
      expect(md).not.toContain('paginate');
      // The refused preview is the host's 400 answer, which the browser logs; nothing else went wrong.
      expect(o.errors).toEqual(['Failed to load resource: the server responded with a status of 400 (Bad Request)']);
    } finally {
      await o.close();
    }
  });
});
