import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright';
import { launch, screenshot, serveSessions, type Served } from './harness';

/**
 * The library's Health tab in Chromium against the web host started on fixtures/palimpsest: the
 * charts of the host's report, a bar picked with the keyboard, and a compaction that opens its
 * session. The row cache goes to a temporary folder.
 */

let browser: Browser;
let served: Served;
let page: Page;
let cache: string;
const saved = process.env.PALIMPSEST_CACHE_DIR;
const consoleErrors: string[] = [];

beforeAll(async () => {
  cache = mkdtempSync(join(tmpdir(), 'palimpsest-e2e-health-'));
  process.env.PALIMPSEST_CACHE_DIR = cache;
  browser = await launch();
  served = await serveSessions(['fixtures/palimpsest']);
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  await page.goto(served.host.url);
  await page.locator('.lib-row').first().waitFor();
});

afterAll(async () => {
  await browser?.close();
  await served?.close();
  if (saved === undefined) delete process.env.PALIMPSEST_CACHE_DIR;
  else process.env.PALIMPSEST_CACHE_DIR = saved;
  rmSync(cache, { recursive: true, force: true });
});

describe('the Health tab', () => {
  it('charts the folder per day and drills down from a bar picked with the keyboard', async () => {
    await page.getByRole('tab', { name: 'Health' }).click();
    const chart = page.getByRole('group', { name: /Compactions by outcome, per day/ });
    await chart.waitFor();
    const bar = chart.getByRole('button', { name: /^2026-09-13:/ });
    await bar.focus();
    await page.keyboard.press('Enter');
    const drill = page.getByRole('region', { name: 'Sessions and compactions behind 2026-09-13' });
    await drill.waitFor();
    expect(await drill.innerText()).toContain('compaction-lifecycle.jsonl');
    await screenshot(page, 'health');
    await drill.getByRole('button', { name: 'compaction cmp_2' }).click();
    await expect.poll(() => page.locator('#tab-library').getAttribute('aria-selected')).toBe('false');
    expect(consoleErrors).toEqual([]);
  });
});
