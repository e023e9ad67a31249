import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright';
import { launch, screenshot, serveSessions, type Served } from './harness';

/**
 * Search within a session (Ctrl+F) in Chromium: the query runs in main; a match sends the session
 * view (UI-2's) to its raw event and to the first request that can show it.
 */

const BASIC = 'fixtures/palimpsest/basic.jsonl';
const XSS = 'fixtures/xss/xss.jsonl';

let browser: Browser;
let served: Served;
let page: Page;
const consoleErrors: string[] = [];
const dialogs: string[] = [];

beforeAll(async () => {
  browser = await launch();
  served = await serveSessions([BASIC, XSS]);
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.goto(served.host.url);
  await page.locator('.row.request').first().waitFor();
});

afterAll(async () => {
  await browser?.close();
  await served?.close();
});

const input = () => page.getByRole('searchbox', { name: 'Search in this session' });
const matches = () => page.locator('.search-results [role=option]');
const selectedRequest = () => page.locator('.pane.requests [role=option][aria-selected=true] .idx').textContent();

describe('search in a session', () => {
  it('opens with Ctrl+F, finds text past the in-memory preview of a long tool result, and jumps to it', async () => {
    await page.locator('.row.request', { hasText: '#5' }).first().click();
    await expect.poll(selectedRequest).toBe('#5');
    await page.keyboard.press('Control+f');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('search-input');
    await input().fill('CLAMPS a page past the end');
    await expect.poll(() => matches().count()).toBeGreaterThan(0);
    const first = matches().first();
    expect(await first.locator('.where').innerText()).toBe('seq 6 · tool result');
    expect(await first.locator('mark').innerText()).toBe('clamps a page past the end');
    expect(await page.locator('.search-status').innerText()).toMatch(/^\d+ match(es)?$/);

    await input().press('Enter');
    // The view goes to the first request that shows seq 6 (#1), and the raw history picks seq 6.
    await expect.poll(selectedRequest).toBe('#1');
    await expect.poll(() => page.locator('.pane.raw .row.event.picked').getAttribute('data-seq')).toBe('6');
    await screenshot(page, 'search-jumped');
  });

  it("goes to a match's request, and to the next match with Enter", async () => {
    await input().fill('compacted-summary');
    await expect.poll(() => matches().count()).toBeGreaterThan(0);
    const summary = matches().filter({ hasText: 'user text' }).first();
    const request = await summary.getByRole('button', { name: /^request #\d+$/ }).innerText();
    await summary.getByRole('button', { name: /^request #\d+$/ }).click();
    await expect.poll(selectedRequest).toBe(request.replace('request ', ''));

    await input().fill('req_0');
    await expect.poll(() => page.locator('.search-status').innerText()).toMatch(/^\d+ matches/);
    await input().press('Enter');
    await expect.poll(() => page.locator('.search-results [aria-selected=true] .where').innerText()).toContain('seq 3');
    await input().press('Enter');
    await expect.poll(() => page.locator('.search-results [aria-selected=true] .where').innerText()).not.toContain('seq 3');
    await expect.poll(() => page.locator('.pane.raw .row.event.picked').getAttribute('data-seq')).not.toBe('3');
  });

  it('says when nothing matches, and closes with Escape', async () => {
    await input().fill('no such text in this session');
    await expect.poll(() => page.locator('.search-status').innerText()).toBe('0 matches');
    await input().press('Escape');
    await expect.poll(() => page.locator('.search-bar').count()).toBe(0);
  });

  it('shows matches in hostile content as text', async () => {
    await page.keyboard.press('Alt+L');
    await page.locator('section[aria-labelledby=started-title]').getByRole('button', { name: 'xss.jsonl' }).click();
    await page.locator('.row.request').first().waitFor();
    await page.keyboard.press('Control+f');
    await input().fill('onerror=alert(1)');
    await expect.poll(() => matches().count()).toBeGreaterThan(0);
    expect(await page.locator('.search-results').innerText()).toContain('<img src=x onerror=alert(1)>');
    const made = await page.evaluate(
      () => document.querySelectorAll('.search-results img, .search-results script, .search-results [onerror], .search-results svg').length,
    );
    expect(made).toBe(0);
    await screenshot(page, 'search-xss');
    await page.waitForTimeout(300);
    expect(dialogs).toEqual([]);
  });

  it('logged no console error', () => {
    expect(consoleErrors).toEqual([]);
  });
});
