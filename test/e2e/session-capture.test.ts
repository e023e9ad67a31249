import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright';
import { launch, screenshot } from './harness';
import { openFixture } from './session-helpers';

/*
 * A failing compaction seen with its capture: the session (a real Claude Code run whose summarizer
 * got HTTP 500 twice) lies beside the capture of its wire traffic, which the host finds and joins.
 */

const RUN = 'fixtures/fidelity/logs/claude-code-2.1.332/compact-http-500';
const NAME = 'd7672e9b-78eb-4ae0-bede-e6cfd3bf86dc.jsonl';
const SESSION = `${RUN}/projects/-tmp-palimpsest-fidelity-run-claude-code-compact-http-500-work/${NAME}`;
const CAPTURE = 'fixtures/captures/fidelity/claude-code-2.1.332.compact-http-500.capture.jsonl';

let browser: Browser;
let dir: string;

beforeAll(async () => {
  browser = await launch();
  dir = mkdtempSync(join(tmpdir(), 'palimpsest-e2e-capture-'));
  copyFileSync(SESSION, join(dir, NAME));
  copyFileSync(CAPTURE, join(dir, `${NAME}.capture.jsonl`));
});
afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a session with its capture', () => {
  it('lists the wire-only attempts, and the compaction panel times them, each selectable from the keyboard', async () => {
    const o = await openFixture(browser, join(dir, NAME));
    try {
      const page = o.page;
      const list = page.getByRole('listbox', { name: 'Requests' });
      // The joined list: two agent requests, three summarizer attempts only the wire has, one more agent request.
      await expect.poll(() => list.locator('[role=option]').count()).toBe(6);
      const sources = await list.locator('[role=option]').evaluateAll((els) => els.map((e) => e.getAttribute('data-source')));
      expect(sources).toEqual(['both', 'both', 'wire', 'wire', 'wire', 'both']);
      expect(await list.locator('#joined-0 .sv-wire').textContent()).toBe('wire ✓');
      expect(await list.locator('#joined-2 .sv-wire').textContent()).toBe('wire 500');
      expect(await list.locator('#joined-2').getAttribute('class')).toMatch(/has-error/);
      expect(await list.locator('#joined-2').textContent()).toMatch(/Mock HTTP 500/);

      await page.getByRole('tab', { name: /^Compaction/ }).click();
      const attempts = page.getByRole('list', { name: /^Attempts of compaction/ });
      await attempts.waitFor();
      const rows = attempts.getByRole('button');
      expect(await rows.count()).toBe(3);
      expect(await rows.nth(0).textContent()).toMatch(/attempt 1 · #2 .*HTTP 500 · .*Mock HTTP 500/);
      expect(await rows.nth(1).textContent()).toMatch(/retry of #2/);
      expect(await rows.nth(2).textContent()).toMatch(/HTTP 200 · finish end_turn/);

      // From the keyboard: focus the last attempt and press Enter — its exact input and output show.
      await rows.nth(2).focus();
      await page.keyboard.press('Enter');
      const view = page.locator('.session-view .pane.wire-view');
      await expect.poll(() => view.locator('h2').textContent()).toContain('at request #4, from the wire');
      await expect.poll(() => view.getAttribute('aria-busy')).toBe('false');
      expect(await view.locator('.sv-wire-items > li').count()).toBeGreaterThan(0);
      expect(await view.locator('.sv-wire-items > li').last().textContent()).toMatch(/summary/i);
      const output = page.locator('.sv-attempts-box [aria-label="Output text"]');
      expect(await output.textContent()).toContain('<summary>1. Primary Request: print a greeting.');
      expect(await list.locator('[aria-selected=true]').getAttribute('id')).toBe('joined-4');

      // A failed attempt: the error, and nothing came back.
      await rows.nth(0).focus();
      await page.keyboard.press(' ');
      await expect.poll(() => view.locator('h2').textContent()).toContain('at request #2, from the wire');
      await expect.poll(() => view.locator('[role=alert]').textContent()).toMatch(/Mock HTTP 500/);

      // The request keys walk the joined list, back onto a request the log has.
      await page.locator('body').click({ position: { x: 5, y: 5 } });
      await page.keyboard.press('k');
      await page.keyboard.press('k');
      await expect.poll(() => list.locator('[aria-selected=true]').getAttribute('id')).toBe('joined-0');
      await expect.poll(() => page.locator('.session-view .pane.view h2').textContent()).toContain('at request #0');
      await screenshot(page, 'session-capture-attempts');
      expect(o.errors).toEqual([]);
    } finally {
      await o.close();
    }
  });
});
